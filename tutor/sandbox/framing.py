"""The framing every harness's messages and reports use, on the host's side: a list of byte
strings, each written as ``<length>:<bytes>`` (grading_harness.pack/unpack and
tracing_harness's twins, which the sandbox runs without importing this package)."""


def pack(items: list[bytes]) -> bytes:
    return b"".join(b"%d:%s" % (len(item), item) for item in items)


def unpack(data: bytes) -> list[bytes]:
    """The items of ``data``; ValueError when it is not exactly such a list."""
    items, position = [], 0
    while position < len(data):
        colon = data.index(b":", position)
        start = colon + 1
        end = start + int(data[position:colon])
        if end > len(data):
            raise ValueError("truncated")
        items.append(data[start:end])
        position = end
    return items
