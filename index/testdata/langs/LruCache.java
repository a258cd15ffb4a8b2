package shop.cache;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * LruCache evicts the least recently used entry when full.
 */
public class LruCache<K, V> extends LinkedHashMap<K, V> {
    private final int capacity;

    /** Creates a cache holding at most capacity entries. */
    public LruCache(int capacity) {
        super(16, 0.75f, true);
        this.capacity = capacity;
    }

    @Override
    protected boolean removeEldestEntry(Map.Entry<K, V> eldest) {
        return size() > capacity;
    }

    public interface Loader<K, V> {
        V load(K key);
    }

    enum Policy { LRU, LFU }
}

interface Evictor {
    void evict();
}
