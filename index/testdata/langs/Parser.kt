package shop.parse

import java.io.Reader

/** Parser reads orders from a text stream. */
class Parser(private val reader: Reader) {
    private var line = 0

    /** parse reads every order, one per line. */
    fun parse(): List<Order> {
        val out = mutableListOf<Order>()
        reader.forEachLine { out += parseLine(it) }
        return out
    }

    @Throws(ParseException::class)
    private fun parseLine(text: String): Order {
        line++
        val (sku, qty) = text.split(",")
        return Order(sku.trim(), qty.trim().toInt())
    }
}

data class Order(val sku: String, val qty: Int)

fun <T> List<T>.second(): T = this[1]

/** Totals sums orders by SKU. */
object Totals {
    /** bySku adds up the quantity of each SKU. */
    fun bySku(orders: List<Order>): Map<String, Int> {
        val out = mutableMapOf<String, Int>()
        for (o in orders) {
            out[o.sku] = (out[o.sku] ?: 0) + o.qty
        }
        return out
    }

    /** largest is the SKU ordered most, or null for no orders. */
    fun largest(orders: List<Order>): String? {
        val totals = bySku(orders)
        var best: String? = null
        var most = 0
        for ((sku, qty) in totals) {
            if (qty > most) {
                best = sku
                most = qty
            }
        }
        return best
    }

    /** report prints one line per SKU, largest first. */
    fun report(orders: List<Order>) {
        bySku(orders).entries
            .sortedByDescending { it.value }
            .forEach { println("${it.key}\t${it.value}") }
    }
}
