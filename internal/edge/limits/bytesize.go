package limits

import (
	"fmt"
	"math"
	"strings"

	"github.com/c2h5oh/datasize"
	"gopkg.in/yaml.v3"
)

// ByteSize is a size in bytes written as Loki writes its byte-size limits
// (flagext.ByteSize): a whole number and an optional unit, B, KB, MB, GB,
// TB, PB or EB, each 1024 times the one before ("256KB", "1GB", "1024").
type ByteSize int64

// Set reads s as Loki does: upper-cased, then parsed by the same library.
func (b *ByteSize) Set(s string) error {
	var v datasize.ByteSize
	if err := v.UnmarshalText([]byte(strings.ToUpper(s))); err != nil {
		return err
	}
	if v > math.MaxInt64 {
		return fmt.Errorf("byte size %q is too large", s)
	}
	*b = ByteSize(v)
	return nil
}

// String is Loki's form: the largest unit that divides the size ("0B",
// "256KB", "1536B").
func (b ByteSize) String() string { return datasize.ByteSize(b).String() }

// UnmarshalYAML reads a scalar, a number or a size with its unit.
func (b *ByteSize) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind != yaml.ScalarNode {
		return fmt.Errorf("line %d: want a byte size such as 256KB", n.Line)
	}
	if err := b.Set(n.Value); err != nil {
		return fmt.Errorf("line %d: %w", n.Line, err)
	}
	return nil
}
