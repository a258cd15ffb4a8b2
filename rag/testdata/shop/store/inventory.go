package store

import "errors"

// ErrOutOfStock is returned when too few units are left.
var ErrOutOfStock = errors.New("out of stock")

// Inventory counts the units in stock of each product.
type Inventory struct {
	units map[string]int
}

// Reserve takes units out of stock for an order being placed.
func (inv *Inventory) Reserve(productID string, n int) error {
	if inv.units[productID] < n {
		return ErrOutOfStock
	}
	inv.units[productID] -= n
	return nil
}

// Release puts reserved units back into stock when an order is cancelled.
func (inv *Inventory) Release(productID string, n int) {
	inv.units[productID] += n
}
