namespace PerfLab.Load;

/// <summary>
/// Parses one HTTP/1.1 response as its bytes arrive, in a buffer reused from one response to the next: the status line
/// and headers (<see cref="Http11Head"/>), then a Content-Length, chunked or read-to-close body (<see cref="Http11Body"/>)
/// that is counted, not kept, unless <see cref="KeepBody"/> asks for it (a JSON check reads it). It does no I/O: the
/// connection receives into <see cref="ReceiveBuffer"/> and hands each receive's count to <see cref="Received"/>, in
/// the one asynchronous method of its exchange, so a response costs no state machine of its own. The buffer (16 KiB)
/// takes a whole response of the usual size in one receive. Interim responses (100 Continue, 103 Early Hints) are
/// skipped. Nothing is allocated per response.
/// </summary>
internal sealed class Http11ResponseReader
{
    private const int InitialBuffer = 16 * 1024;
    private const int MaxHeadBytes = 64 * 1024;

    private byte[] _buffer = [];
    private int _start;
    private int _end;
    private readonly KeptBody _kept = new();
    private readonly Http11Body _body = new();
    private bool _headRequest;
    private bool _inBody;
    private int _status;

    /// <summary>Keep each response's body (up to 16 MiB) for <see cref="Body"/>; off, bodies are counted and dropped.</summary>
    public bool KeepBody { get; set; }

    /// <summary>With <see cref="KeepBody"/>: the last response's body (chunked ones de-chunked), valid until <see cref="Begin"/>.</summary>
    public ReadOnlySpan<byte> Body => _kept.Span;

    /// <summary>True when the last body was longer than the 16 MiB kept of it.</summary>
    public bool BodyTruncated => _kept.Truncated;

    /// <summary>Whether any byte of the current response has arrived (a connection closed before then was idle).</summary>
    public bool GotBytes { get; private set; }

    /// <summary>Once <see cref="Received"/> returned true: the response's status and body length.</summary>
    public Http11Response Response => new(_status, _body.Bytes);

    /// <summary>Once <see cref="Received"/> returned true: whether the connection must be closed after the response.</summary>
    public bool Close { get; private set; }

    /// <summary>
    /// Starts a new exchange. No pipelining, so nothing the server sent before the request belongs to it.
    /// <paramref name="headRequest"/>: the request is a HEAD, whose response has no body whatever its Content-Length says.
    /// </summary>
    public void Begin(bool headRequest)
    {
        if (_buffer.Length == 0)
        {
            _buffer = new byte[InitialBuffer];
        }
        _start = _end = 0;
        GotBytes = false;
        _headRequest = headRequest;
        _inBody = false;
        _kept.Clear();
    }

    /// <summary>Where the next receive goes: the free end of the buffer, made room for first.</summary>
    public Memory<byte> ReceiveBuffer()
    {
        MakeRoom();
        return _buffer.AsMemory(_end);
    }

    /// <summary>
    /// Takes a receive of <paramref name="count"/> bytes into <see cref="ReceiveBuffer"/> (0: the server closed the
    /// connection); returns whether the response is complete (<see cref="Response"/>, <see cref="Close"/>). Throws
    /// <see cref="Http11ProtocolException"/> for a response cut off before the end of its headers, or malformed.
    /// </summary>
    public bool Received(int count)
    {
        if (count == 0)
        {
            if (!_inBody)
            {
                throw new Http11ProtocolException("the server closed the connection before the end of the response headers");
            }
            _body.Closed();
            return true;
        }
        _end += count;
        GotBytes = true;
        while (!_inBody)
        {
            var headEnd = _buffer.AsSpan(_start, _end - _start).IndexOf("\r\n\r\n"u8);
            if (headEnd < 0)
            {
                return false;
            }
            var head = Http11Head.Parse(_buffer.AsSpan(_start, headEnd));
            _start += headEnd + 4;
            if (head.Status is >= 100 and < 200 and not 101)
            {
                continue; // an interim response (100 Continue, 103 Early Hints): the real one follows
            }
            _status = head.Status;
            Close = StartBody(head, _headRequest);
            _inBody = true;
        }
        _start += _body.Advance(_buffer.AsSpan(_start, _end - _start), KeepBody ? _kept : null);
        return _body.Done;
    }

    /// <summary>Sets <see cref="_body"/>'s framing from the head; returns whether the connection closes after the response.</summary>
    private bool StartBody(in Http11Head.Head head, bool headRequest)
    {
        if (head.Status is 204 or 304 or 101 || headRequest)
        {
            _body.StartLength(0); // no body (a HEAD response's Content-Length is the GET's)
        }
        else if (head.Chunked)
        {
            _body.StartChunked();
        }
        else if (head.ContentLength >= 0)
        {
            _body.StartLength(head.ContentLength);
        }
        else
        {
            _body.StartToClose();
            return true;
        }
        return head.Close;
    }

    /// <summary>
    /// Makes room after <c>_end</c>: starts over at the buffer's beginning once all it held was taken (a long body
    /// streams through the same 16 KiB), compacts a partial line or head, or grows it up to <see cref="MaxHeadBytes"/>.
    /// </summary>
    private void MakeRoom()
    {
        if (_start == _end)
        {
            _start = _end = 0;
            return;
        }
        if (_end < _buffer.Length)
        {
            return;
        }
        if (_start > 0)
        {
            _buffer.AsSpan(_start, _end - _start).CopyTo(_buffer);
            _end -= _start;
            _start = 0;
        }
        else if (_buffer.Length < MaxHeadBytes)
        {
            Array.Resize(ref _buffer, Math.Min(MaxHeadBytes, _buffer.Length * 2));
        }
        else
        {
            throw new Http11ProtocolException($"a response line or header block longer than {MaxHeadBytes / 1024} KiB");
        }
    }
}
