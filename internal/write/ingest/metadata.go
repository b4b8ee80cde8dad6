package ingest

import "github.com/vloki/vloki/internal/lokidata"

// renameClashingMetadata gives structured metadata named like a label of
// its stream the name Loki's queries read it under, name+"_extracted"
// (Loki stores both and renames when it reads; vloki renames once, before
// the rows are stored and handed to live tails). When several metadata end
// up with one name the last one wins, as Loki's label builder sets them in
// order.
func renameClashingMetadata(streams []Stream) {
	for _, s := range streams {
		for i := range s.Entries {
			if clashes(s.Entries[i].StructuredMetadata, s.Labels) {
				s.Entries[i].StructuredMetadata = readable(s.Entries[i].StructuredMetadata, s.Labels)
			}
		}
	}
}

func clashes(md, stream lokidata.Labels) bool {
	for _, l := range md {
		if _, ok := stream.Get(l.Name); ok {
			return true
		}
	}
	return false
}

func readable(md, stream lokidata.Labels) lokidata.Labels {
	out := make(lokidata.Labels, 0, len(md))
	for _, l := range md {
		name := l.Name
		if _, ok := stream.Get(name); ok {
			name += "_extracted"
		}
		out = set(out, name, l.Value)
	}
	return out
}

// set sets name to value, replacing an earlier label of that name.
func set(ls lokidata.Labels, name, value string) lokidata.Labels {
	for i := range ls {
		if ls[i].Name == name {
			ls[i].Value = value
			return ls
		}
	}
	return append(ls, lokidata.Label{Name: name, Value: value})
}
