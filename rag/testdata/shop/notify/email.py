"""Customer notifications."""

import smtplib
from email.message import EmailMessage


def send_confirmation(order, smtp_host):
    """Send the order confirmation email to the customer."""
    msg = EmailMessage()
    msg["Subject"] = f"Your order {order['id']}"
    msg["To"] = order["email"]
    msg.set_content(render_receipt(order))
    with smtplib.SMTP(smtp_host) as s:
        s.send_message(msg)


def render_receipt(order):
    lines = [f"{i['name']} x{i['qty']}" for i in order["items"]]
    return "\n".join(lines)
