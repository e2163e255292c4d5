using System.Buffers.Text;
using System.Runtime.CompilerServices;
using PerfLab.Load.Sockets;

namespace PerfLab.Load;

/// <summary>
/// Reads one HTTP/1.1 response from a connection's socket into a buffer reused from one response to the next: the
/// status line and headers (<see cref="Http11Head"/>), then a Content-Length, chunked or read-to-close body that is
/// counted, not kept, unless <see cref="KeepBody"/> asks for it (a JSON check reads it). Interim responses (100
/// Continue, 103 Early Hints) are skipped. Nothing is allocated per response.
/// </summary>
internal sealed class Http11ResponseReader
{
    private const int InitialBuffer = 16 * 1024;
    private const int MaxHeadBytes = 64 * 1024;

    private byte[] _buffer = [];
    private int _start;
    private int _end;
    private readonly KeptBody _kept = new();

    /// <summary>Keep each response's body (up to 16 MiB) for <see cref="Body"/>; off, bodies are counted and dropped.</summary>
    public bool KeepBody { get; set; }

    /// <summary>With <see cref="KeepBody"/>: the last response's body (chunked ones de-chunked), valid until <see cref="Begin"/>.</summary>
    public ReadOnlySpan<byte> Body => _kept.Span;

    /// <summary>True when the last body was longer than the 16 MiB kept of it.</summary>
    public bool BodyTruncated => _kept.Truncated;

    /// <summary>Whether any byte of the current response has arrived (a connection closed before then was idle).</summary>
    public bool GotBytes { get; private set; }

    /// <summary>Starts a new exchange. No pipelining, so nothing the server sent before the request belongs to it.</summary>
    public void Begin()
    {
        if (_buffer.Length == 0)
        {
            _buffer = new byte[InitialBuffer];
        }
        _start = _end = 0;
        GotBytes = false;
        _kept.Clear();
    }

    /// <summary>
    /// Reads the response to the request just sent; <paramref name="headRequest"/>: it was a HEAD, whose response
    /// has no body whatever its Content-Length says. Close: the connection must be closed after it.
    /// </summary>
    [AsyncMethodBuilder(typeof(PoolingAsyncValueTaskMethodBuilder<>))]
    public async ValueTask<(Http11Response Response, bool Close)> ReadAsync(IConnectionSocket socket, bool headRequest)
    {
        while (true)
        {
            int headEnd;
            while ((headEnd = _buffer.AsSpan(_start, _end - _start).IndexOf("\r\n\r\n"u8)) < 0)
            {
                // The receive is awaited here rather than in a helper: one state machine fewer on every response.
                MakeRoom();
                var n = await socket.ReceiveAsync(_buffer.AsMemory(_end)).ConfigureAwait(false);
                if (n == 0)
                {
                    throw new Http11ProtocolException("the server closed the connection before the end of the response headers");
                }
                _end += n;
                GotBytes = true;
            }
            var head = Http11Head.Parse(_buffer.AsSpan(_start, headEnd));
            _start += headEnd + 4;
            if (head.Status is >= 100 and < 200 and not 101)
            {
                continue; // an interim response (100 Continue, 103 Early Hints): the real one follows
            }
            long body = 0;
            var close = head.Close;
            if (head.Status is 204 or 304 or 101 || headRequest)
            {
                // no body (a HEAD response's Content-Length is the GET's)
            }
            else if (head.Chunked)
            {
                body = await ReadChunkedAsync(socket).ConfigureAwait(false);
            }
            else if (head.ContentLength >= 0)
            {
                if (_end - _start >= head.ContentLength)
                {
                    Consume((int)head.ContentLength); // the usual case: the body came with the head
                }
                else
                {
                    await SkipAsync(socket, head.ContentLength).ConfigureAwait(false);
                }
                body = head.ContentLength;
            }
            else
            {
                body = await ReadToCloseAsync(socket).ConfigureAwait(false);
                close = true;
            }
            return (new Http11Response(head.Status, body), close);
        }
    }

    /// <summary>Makes room after <c>_end</c>: compacts the buffer, or grows it up to <see cref="MaxHeadBytes"/>.</summary>
    private void MakeRoom()
    {
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

    /// <summary>Takes <paramref name="count"/> body bytes the buffer already holds.</summary>
    private void Consume(int count)
    {
        Keep(_buffer.AsSpan(_start, count));
        _start += count;
    }

    /// <summary>Consumes <paramref name="count"/> body bytes: what the buffer holds, then reads that are discarded.</summary>
    [AsyncMethodBuilder(typeof(PoolingAsyncValueTaskMethodBuilder))]
    private async ValueTask SkipAsync(IConnectionSocket socket, long count)
    {
        var held = _end - _start;
        if (held >= count)
        {
            Consume((int)count);
            return;
        }
        Keep(_buffer.AsSpan(_start, held));
        count -= held;
        _start = _end = 0;
        while (count > 0)
        {
            var n = await socket.ReceiveAsync(_buffer.AsMemory(0, (int)Math.Min(_buffer.Length, count))).ConfigureAwait(false);
            if (n == 0)
            {
                throw new Http11ProtocolException("the server closed the connection before the end of the body");
            }
            Keep(_buffer.AsSpan(0, n));
            count -= n;
        }
    }

    /// <summary>With <see cref="KeepBody"/>, appends body bytes to <see cref="Body"/>.</summary>
    private void Keep(ReadOnlySpan<byte> bytes)
    {
        if (KeepBody)
        {
            _kept.Append(bytes);
        }
    }

    [AsyncMethodBuilder(typeof(PoolingAsyncValueTaskMethodBuilder<>))]
    private async ValueTask<long> ReadToCloseAsync(IConnectionSocket socket)
    {
        long total = _end - _start;
        Keep(_buffer.AsSpan(_start, _end - _start));
        _start = _end = 0;
        int n;
        while ((n = await socket.ReceiveAsync(_buffer).ConfigureAwait(false)) > 0)
        {
            Keep(_buffer.AsSpan(0, n));
            total += n;
        }
        return total;
    }

    [AsyncMethodBuilder(typeof(PoolingAsyncValueTaskMethodBuilder<>))]
    private async ValueTask<long> ReadChunkedAsync(IConnectionSocket socket)
    {
        long total = 0;
        while (true)
        {
            var line = await ReadLineAsync(socket).ConfigureAwait(false);
            var sizeText = _buffer.AsSpan(line.Start, line.Length);
            var semicolon = sizeText.IndexOf((byte)';');
            if (semicolon >= 0)
            {
                sizeText = sizeText[..semicolon];
            }
            sizeText = sizeText.Trim((byte)' ');
            if (!Utf8Parser.TryParse(sizeText, out long size, out var used, 'X') || used != sizeText.Length || size < 0)
            {
                throw new Http11ProtocolException($"invalid chunk size '{Http11Head.Printable(sizeText)}'");
            }
            if (size == 0)
            {
                while ((await ReadLineAsync(socket).ConfigureAwait(false)).Length > 0)
                {
                    // trailer fields: not needed
                }
                return total;
            }
            await SkipAsync(socket, size).ConfigureAwait(false);
            total += size;
            if ((await ReadLineAsync(socket).ConfigureAwait(false)).Length != 0)
            {
                throw new Http11ProtocolException("a chunk not followed by CRLF");
            }
        }
    }

    private readonly record struct Line(int Start, int Length);

    [AsyncMethodBuilder(typeof(PoolingAsyncValueTaskMethodBuilder<>))]
    private async ValueTask<Line> ReadLineAsync(IConnectionSocket socket)
    {
        int end;
        while ((end = _buffer.AsSpan(_start, _end - _start).IndexOf("\r\n"u8)) < 0)
        {
            MakeRoom();
            var n = await socket.ReceiveAsync(_buffer.AsMemory(_end)).ConfigureAwait(false);
            if (n == 0)
            {
                throw new Http11ProtocolException("the server closed the connection inside a chunked body");
            }
            _end += n;
        }
        var line = new Line(_start, end);
        _start += end + 2;
        return line;
    }
}
