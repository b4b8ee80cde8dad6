package tenant

// ID is a tenant as VictoriaLogs stores it: the AccountID/ProjectID pair
// its rows are written and read under. Loki's tenant is the name in
// X-Scope-OrgID; Resolver maps that name to an ID.
type ID struct {
	AccountID uint32
	ProjectID uint32
}
