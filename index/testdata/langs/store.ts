// In-memory product store.

/** A product for sale. */
export interface Product {
  id: string;
  name: string;
  price: number;
}

export type ProductID = string;

export enum Category {
  Books,
  Music,
}

/** ProductStore keeps products by id. */
export class ProductStore {
  private products = new Map<ProductID, Product>();

  /** Adds or replaces a product. */
  put(p: Product): void {
    this.products.set(p.id, p);
  }

  get(id: ProductID): Product | undefined {
    return this.products.get(id);
  }
}

export function searchProducts(store: ProductStore, query: string): Product[] {
  const q = query.toLowerCase();
  return [];
}

export const priceOf = (p: Product): number => p.price;
