## Decoder tests.
