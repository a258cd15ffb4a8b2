defmodule Shop.Cart do
  @moduledoc "A customer's cart."

  # add puts an item in the cart.
  def add(cart, item) do
    [item | cart]
  end

  defp total(cart), do: Enum.sum(Enum.map(cart, & &1.price))
end
