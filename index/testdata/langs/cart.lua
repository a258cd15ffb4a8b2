-- cart keeps the items a customer is buying.
local M = {}

-- add puts an item in the cart.
function M.add(cart, item)
  table.insert(cart, item)
end

local function total(cart)
  local sum = 0
  for _, item in ipairs(cart) do sum = sum + item.price end
  return sum
end

M.total = function(cart) return total(cart) end

return M
