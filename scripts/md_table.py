"""Markdown tables for the summary scripts (scripts/*-summary.py), which import it from their folder."""


def print_table(title, columns, rows):
    """A blank line, `title`, a blank line, then a table of `columns` and `rows` (sequences of cells)."""
    print()
    print(title)
    print()
    print("| " + " | ".join(columns) + " |")
    print("|" + "---|" * len(columns))
    for row in rows:
        print("| " + " | ".join(str(cell) for cell in row) + " |")
