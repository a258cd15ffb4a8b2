//! Inventory tracking.

use std::collections::HashMap;

/// An item kept in stock.
#[derive(Debug, Clone)]
pub struct Item {
    pub name: String,
    pub count: u32,
}

/// Errors the inventory reports.
pub enum InventoryError {
    NotFound(String),
    OutOfStock,
}

/// Something that can be restocked.
pub trait Restock {
    fn restock(&mut self, name: &str, count: u32);
}

pub struct Inventory {
    items: HashMap<String, Item>,
}

impl Inventory {
    /// Creates an empty inventory.
    pub fn new() -> Self {
        Inventory { items: HashMap::new() }
    }

    pub fn take(&mut self, name: &str) -> Result<Item, InventoryError> {
        match self.items.get_mut(name) {
            Some(it) if it.count > 0 => {
                it.count -= 1;
                Ok(it.clone())
            }
            Some(_) => Err(InventoryError::OutOfStock),
            None => Err(InventoryError::NotFound(name.to_string())),
        }
    }
}

impl Restock for Inventory {
    fn restock(&mut self, name: &str, count: u32) {
        let e = self.items.entry(name.to_string()).or_insert(Item { name: name.to_string(), count: 0 });
        e.count += count;
    }
}

mod tests {
    fn helper() -> u32 {
        1
    }
}

macro_rules! square {
    ($x:expr) => {
        $x * $x
    };
}
