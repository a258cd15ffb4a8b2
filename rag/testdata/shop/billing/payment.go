// Package billing charges customers.
package billing

import (
	"context"
	"time"
)

// Gateway is the payment provider.
type Gateway interface {
	Charge(ctx context.Context, orderID string, cents int) (string, error)
}

// chargeWithRetry charges an order, retrying failed payments with an
// exponential backoff between attempts.
func chargeWithRetry(ctx context.Context, g Gateway, orderID string, cents int) (string, error) {
	delay := 100 * time.Millisecond
	var err error
	for attempt := 0; attempt < 4; attempt++ {
		var id string
		if id, err = g.Charge(ctx, orderID, cents); err == nil {
			return id, nil
		}
		time.Sleep(delay)
		delay *= 2
	}
	return "", err
}
