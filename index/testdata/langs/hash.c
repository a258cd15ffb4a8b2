/* A small string hash table. */
#include <stdlib.h>
#include <string.h>

#define TABLE_SIZE 64

/* entry is one key/value pair in a bucket chain. */
struct entry {
    char *key;
    int value;
    struct entry *next;
};

typedef struct {
    struct entry *buckets[TABLE_SIZE];
} table;

/* hash_string computes the djb2 hash of s. */
static unsigned long hash_string(const char *s) {
    unsigned long h = 5381;
    int c;
    while ((c = *s++))
        h = h * 33 + c;
    return h;
}

int table_get(table *t, const char *key, int *out) {
    struct entry *e = t->buckets[hash_string(key) % TABLE_SIZE];
    for (; e; e = e->next) {
        if (strcmp(e->key, key) == 0) {
            *out = e->value;
            return 1;
        }
    }
    return 0;
}

enum color { RED, GREEN };
