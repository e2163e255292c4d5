using System.Buffers.Text;

namespace PerfLab.Load;

/// <summary>
/// The framing of one response body (Content-Length, chunked, or until the server closes), read from whatever part of
/// it the connection's buffer holds: <see cref="Advance"/> takes all it can and says how much it took, without
/// waiting. So the reader awaits only where the kernel has nothing yet, and a body that came with its head (the usual
/// case, a ~1.6 KB chunked JSON response included) costs no asynchronous step at all. Body bytes are counted and
/// skipped where they lie, never copied, unless a check keeps them (<see cref="KeptBody"/>).
/// </summary>
internal sealed class Http11Body
{
    private enum Stage
    {
        Done,
        Data,       // _left bytes of a Content-Length body or of a chunk
        ChunkSize,  // a chunk-size line
        ChunkEnd,   // the CRLF after a chunk's data
        Trailer,    // trailer fields, up to the empty line
        ToClose,    // everything until the server closes
    }

    private Stage _stage;
    private bool _chunked;
    private long _left;

    /// <summary>Body bytes so far (chunked bodies de-chunked).</summary>
    public long Bytes { get; private set; }

    /// <summary>Whether the whole body has been taken.</summary>
    public bool Done => _stage == Stage.Done;

    /// <summary>A body of <paramref name="length"/> bytes (0: none, as for a HEAD, 204 or 304).</summary>
    public void StartLength(long length) => Start(length > 0 ? Stage.Data : Stage.Done, chunked: false, length);

    public void StartChunked() => Start(Stage.ChunkSize, chunked: true, 0);

    public void StartToClose() => Start(Stage.ToClose, chunked: false, 0);

    private void Start(Stage stage, bool chunked, long left)
    {
        _stage = stage;
        _chunked = chunked;
        _left = left;
        Bytes = 0;
    }

    /// <summary>
    /// Takes what it can of <paramref name="buffered"/>; returns the bytes taken. <paramref name="kept"/>: where body
    /// bytes go, if anywhere.
    /// </summary>
    public int Advance(ReadOnlySpan<byte> buffered, KeptBody? kept)
    {
        var used = 0;
        while (_stage != Stage.Done)
        {
            var rest = buffered[used..];
            if (_stage == Stage.Data)
            {
                var take = (int)Math.Min(_left, rest.Length);
                if (take == 0)
                {
                    return used;
                }
                kept?.Append(rest[..take]);
                used += take;
                _left -= take;
                Bytes += take;
                if (_left == 0)
                {
                    _stage = _chunked ? Stage.ChunkEnd : Stage.Done;
                }
            }
            else if (_stage == Stage.ToClose)
            {
                kept?.Append(rest);
                Bytes += rest.Length;
                return used + rest.Length;
            }
            else
            {
                var eol = rest.IndexOf("\r\n"u8);
                if (eol < 0)
                {
                    return used;
                }
                Line(rest[..eol]);
                used += eol + 2;
            }
        }
        return used;
    }

    /// <summary>The server closed the connection: the end of a read-to-close body, a broken response otherwise.</summary>
    public void Closed()
    {
        if (_stage == Stage.ToClose)
        {
            _stage = Stage.Done;
            return;
        }
        throw new Http11ProtocolException(_chunked
            ? "the server closed the connection inside a chunked body"
            : "the server closed the connection before the end of the body");
    }

    private void Line(ReadOnlySpan<byte> line)
    {
        switch (_stage)
        {
            case Stage.ChunkSize:
                var size = ChunkSize(line);
                _stage = size == 0 ? Stage.Trailer : Stage.Data;
                _left = size;
                break;
            case Stage.ChunkEnd:
                if (!line.IsEmpty)
                {
                    throw new Http11ProtocolException("a chunk not followed by CRLF");
                }
                _stage = Stage.ChunkSize;
                break;
            default: // trailer fields are not needed; the empty line ends the body
                if (line.IsEmpty)
                {
                    _stage = Stage.Done;
                }
                break;
        }
    }

    private static long ChunkSize(ReadOnlySpan<byte> line)
    {
        var semicolon = line.IndexOf((byte)';');
        var sizeText = (semicolon >= 0 ? line[..semicolon] : line).Trim((byte)' ');
        if (!Utf8Parser.TryParse(sizeText, out long size, out var used, 'X') || used != sizeText.Length || size < 0)
        {
            throw new Http11ProtocolException($"invalid chunk size '{Http11Head.Printable(sizeText)}'");
        }
        return size;
    }
}
