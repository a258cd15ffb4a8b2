package store

import "strings"

// Product is something the shop sells.
type Product struct {
	ID, Name string
	Price    int
	WeightG  int
}

// Store holds the catalog.
type Store struct {
	products []Product
}

// ListProducts returns one page of the catalog, size products per page.
func (s *Store) ListProducts(page, size int) []Product {
	start := page * size
	if start >= len(s.products) {
		return nil
	}
	return s.products[start:min(start+size, len(s.products))]
}

// SearchProducts finds products whose name contains the query words.
func (s *Store) SearchProducts(query string) []Product {
	var out []Product
	for _, p := range s.products {
		if strings.Contains(strings.ToLower(p.Name), strings.ToLower(query)) {
			out = append(out, p)
		}
	}
	return out
}
