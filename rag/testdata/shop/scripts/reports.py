"""Sales reports for the back office."""

import csv


class SalesReport:
    """Aggregates orders per day."""

    def __init__(self, orders):
        self.orders = orders

    def daily_totals(self):
        totals = {}
        for o in self.orders:
            totals[o["day"]] = totals.get(o["day"], 0) + o["total"]
        return totals

    def export_sales_csv(self, path):
        """Write the daily sales totals to a CSV spreadsheet."""
        with open(path, "w", newline="") as f:
            w = csv.writer(f)
            for day, total in sorted(self.daily_totals().items()):
                w.writerow([day, total])
