package tenant

import "context"

type nameKey struct{}

// WithName records the tenant's name (its X-Scope-OrgID) for the layers
// below the API, whose errors name it as Loki's do.
func WithName(ctx context.Context, name string) context.Context {
	return context.WithValue(ctx, nameKey{}, name)
}

// NameFrom is the name WithName recorded, Loki's "fake" when none was.
func NameFrom(ctx context.Context) string {
	if n, ok := ctx.Value(nameKey{}).(string); ok {
		return n
	}
	return Fake
}
