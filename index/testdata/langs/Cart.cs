using System.Collections.Generic;

namespace Shop
{
    // Cart holds the items a customer is buying.
    public class Cart
    {
        private readonly List<Item> items = new List<Item>();

        // Add puts an item in the cart.
        public void Add(Item item)
        {
            items.Add(item);
        }

        public async Task<decimal> TotalAsync(IPriceList prices)
        {
            decimal sum = 0;
            foreach (var item in items)
            {
                sum += await prices.PriceOf(item);
            }
            return sum;
        }
    }
}
