// Package server exposes the shop over HTTP.
package server

import (
	"net/http"
	"strconv"
)

// registerRoutes wires every HTTP route of the shop to its handler.
func registerRoutes(mux *http.ServeMux, s *Shop) {
	mux.HandleFunc("/products", s.handleListProducts)
	mux.HandleFunc("/cart", s.handleCart)
	mux.HandleFunc("/orders", s.handleOrders)
	mux.HandleFunc("/login", s.handleLogin)
}

// handleListProducts answers a page of the product listing.
func (s *Shop) handleListProducts(w http.ResponseWriter, r *http.Request) {
	page, _ := strconv.Atoi(r.URL.Query().Get("page"))
	products := s.Store.ListProducts(page, 20)
	writeJSON(w, products)
}

// handleCart shows the customer's cart with its total.
func (s *Shop) handleCart(w http.ResponseWriter, r *http.Request) {
	cart := s.cartFor(r)
	writeJSON(w, map[string]any{"items": cart.Items, "total": cart.Total()})
}
