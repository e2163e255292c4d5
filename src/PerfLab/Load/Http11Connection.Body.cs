using System.Buffers.Text;
using System.Net.Sockets;
using System.Runtime.CompilerServices;

namespace PerfLab.Load;

// Reading a response's body: counted, or kept for a check; Content-Length, chunked, or until the server closes.
internal sealed partial class Http11Connection
{
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

    /// <summary>Consumes <paramref name="count"/> body bytes: what the buffer holds, then reads that are discarded.</summary>
    [AsyncMethodBuilder(typeof(PoolingAsyncValueTaskMethodBuilder))]
    private async ValueTask SkipAsync(Socket socket, long count)
    {
        var held = _end - _start;
        if (held >= count)
        {
            Keep(_buffer.AsSpan(_start, (int)count));
            _start += (int)count;
            return;
        }
        Keep(_buffer.AsSpan(_start, held));
        count -= held;
        _start = _end = 0;
        while (count > 0)
        {
            var n = await socket.ReceiveAsync(_buffer.AsMemory(0, (int)Math.Min(_buffer.Length, count)), SocketFlags.None).ConfigureAwait(false);
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
    private async ValueTask<long> ReadToCloseAsync(Socket socket)
    {
        long total = _end - _start;
        Keep(_buffer.AsSpan(_start, _end - _start));
        _start = _end = 0;
        int n;
        while ((n = await socket.ReceiveAsync(_buffer, SocketFlags.None).ConfigureAwait(false)) > 0)
        {
            Keep(_buffer.AsSpan(0, n));
            total += n;
        }
        return total;
    }

    [AsyncMethodBuilder(typeof(PoolingAsyncValueTaskMethodBuilder<>))]
    private async ValueTask<long> ReadChunkedAsync(Socket socket)
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
    private async ValueTask<Line> ReadLineAsync(Socket socket)
    {
        int end;
        while ((end = _buffer.AsSpan(_start, _end - _start).IndexOf("\r\n"u8)) < 0)
        {
            MakeRoom();
            var n = await socket.ReceiveAsync(_buffer.AsMemory(_end), SocketFlags.None).ConfigureAwait(false);
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
