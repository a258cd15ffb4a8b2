// Package store keeps products, carts, orders and stock.
package store

// Item is one line of a cart.
type Item struct {
	ProductID string
	Price     int // cents
	Quantity  int
}

// Cart is what a customer is about to buy.
type Cart struct {
	Items    []Item
	Discount int // percent
}

// Total sums the price of every item times its quantity, minus the
// discount, in cents.
func (c *Cart) Total() int {
	sum := 0
	for _, it := range c.Items {
		sum += it.Price * it.Quantity
	}
	return sum - sum*c.Discount/100
}

// ApplyDiscount checks a discount code and sets the cart's discount.
func (c *Cart) ApplyDiscount(code string, codes map[string]int) bool {
	pct, ok := codes[code]
	if ok {
		c.Discount = pct
	}
	return ok
}
