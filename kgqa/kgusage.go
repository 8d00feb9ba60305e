package kgqa

// KGUsage is the KG work of one question, query by query.
type KGUsage struct {
	// Queries are the SPARQL queries sent, in the order they ended.
	Queries []KGQueryCost `json:"queries,omitempty"`
	// Dropped counts the queries sent beyond the log's cap, left out of
	// Queries (SPARQLQueries counts them all).
	Dropped int `json:"dropped,omitempty"`
	// Cache counts the cache lookups by primitive (relations, neighbors,
	// count, linked, name, search, select).
	Cache map[string]KGCacheCount `json:"cache,omitempty"`
}

// KGQueryCost is the cost of one SPARQL query sent to the KG.
type KGQueryCost struct {
	// Kind is what the query asks: relations, relations-batch (several
	// entities' relations), neighbors, neighbors-batch, names, mediators,
	// statements, name, search-exact, search-fold, search-text, count,
	// linked or select.
	Kind string `json:"kind"`
	// Entity is the entity the query is anchored at ("" for names,
	// searches, batches and raw selects).
	Entity string `json:"entity,omitempty"`
	// Rows is the number of result rows.
	Rows int `json:"rows"`
	// MS is the query's latency in milliseconds, as the client saw it.
	MS float64 `json:"ms"`
	// Failed is true when the query returned an error.
	Failed bool `json:"failed,omitempty"`
}

// KGCacheCount is the cache lookups of one primitive.
type KGCacheCount struct {
	// Hits were answered without a backend call; Misses went to it.
	Hits   int64 `json:"hits"`
	Misses int64 `json:"misses"`
}
