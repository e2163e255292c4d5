namespace PerfLab.Load;

/// <summary>
/// A response body kept for a check (a JSON expectation reads it): at most 16 MiB, in a buffer that grows and is
/// reused from one response to the next, so a connection that keeps bodies allocates only while they grow.
/// </summary>
internal sealed class KeptBody
{
    private const int Max = 16 * 1024 * 1024;

    private byte[] _bytes = [];
    private int _length;

    /// <summary>The body so far (chunked bodies de-chunked); valid until <see cref="Clear"/>.</summary>
    public ReadOnlySpan<byte> Span => _bytes.AsSpan(0, _length);

    /// <summary>True when the body was longer than the 16 MiB kept of it.</summary>
    public bool Truncated { get; private set; }

    public void Clear()
    {
        _length = 0;
        Truncated = false;
    }

    public void Append(ReadOnlySpan<byte> bytes)
    {
        if (bytes.IsEmpty)
        {
            return;
        }
        var room = Max - _length;
        if (bytes.Length > room)
        {
            Truncated = true;
            bytes = bytes[..room];
        }
        if (_length + bytes.Length > _bytes.Length)
        {
            Array.Resize(ref _bytes, Math.Min(Max, Math.Max(_length + bytes.Length, Math.Max(4096, _bytes.Length * 2))));
        }
        bytes.CopyTo(_bytes.AsSpan(_length));
        _length += bytes.Length;
    }
}
