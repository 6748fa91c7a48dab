## Tracer sources (issue 3) are listed here.
