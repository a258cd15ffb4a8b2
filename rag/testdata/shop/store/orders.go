package store

// Order is a placed purchase.
type Order struct {
	ID        string
	Items     []Item
	PaymentID string
	Cancelled bool
}

// CancelOrder marks the order cancelled, returns its units to stock and
// refunds the payment.
func CancelOrder(o *Order, inv *Inventory, refund func(paymentID string) error) error {
	for _, it := range o.Items {
		inv.Release(it.ProductID, it.Quantity)
	}
	o.Cancelled = true
	return refund(o.PaymentID)
}

// ShippingCost charges by parcel weight in grams: a base fee plus a rate
// per started kilogram.
func ShippingCost(weightG int) int {
	kilos := (weightG + 999) / 1000
	return 499 + kilos*150
}
