package frontend

import (
	"encoding/binary"
	"errors"
	"net/http"
	"sort"
)

// answerMagic starts an encoded answer; a change of layout changes it.
const answerMagic = "vla3"

var errBadAnswer = errors.New("results cache: malformed answer")

// marshal encodes an answer for a shared cache: magic, status, the
// headers, the body (empty when the gzipped body stands for it: kept), the
// gzipped body (empty when none).
func (a *answer) marshal() []byte {
	b := make([]byte, 0, len(a.body)+128)
	b = append(b, answerMagic...)
	b = binary.AppendUvarint(b, uint64(a.status))
	names := make([]string, 0, len(a.header))
	for k := range a.header {
		names = append(names, k)
	}
	sort.Strings(names)
	b = binary.AppendUvarint(b, uint64(len(names)))
	for _, k := range names {
		b = appendBytes(b, []byte(k))
		b = binary.AppendUvarint(b, uint64(len(a.header[k])))
		for _, v := range a.header[k] {
			b = appendBytes(b, []byte(v))
		}
	}
	b = appendBytes(b, a.body)
	return appendBytes(b, a.gz)
}

func appendBytes(b, p []byte) []byte {
	b = binary.AppendUvarint(b, uint64(len(p)))
	return append(b, p...)
}

// unmarshalAnswer decodes what marshal wrote.
func unmarshalAnswer(b []byte) (*answer, error) {
	if len(b) < len(answerMagic) || string(b[:len(answerMagic)]) != answerMagic {
		return nil, errBadAnswer
	}
	d := decoder{b: b[len(answerMagic):]}
	a := &answer{status: int(d.uvarint()), header: http.Header{}, complete: true}
	for n := d.uvarint(); n > 0 && d.err == nil; n-- {
		k := string(d.bytes())
		for m := d.uvarint(); m > 0 && d.err == nil; m-- {
			a.header[k] = append(a.header[k], string(d.bytes()))
		}
	}
	a.body = d.bytes()
	if gz := d.bytes(); len(gz) > 0 {
		a.gz = gz
	}
	if d.err != nil || len(d.b) != 0 {
		return nil, errBadAnswer
	}
	return a, nil
}

type decoder struct {
	b   []byte
	err error
}

func (d *decoder) uvarint() uint64 {
	v, n := binary.Uvarint(d.b)
	if n <= 0 {
		d.err = errBadAnswer
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *decoder) bytes() []byte {
	n := d.uvarint()
	if d.err != nil || n > uint64(len(d.b)) {
		d.err = errBadAnswer
		return nil
	}
	p := d.b[:n]
	d.b = d.b[n:]
	return p
}
