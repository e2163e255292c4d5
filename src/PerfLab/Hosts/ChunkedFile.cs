using System.Globalization;
using System.Security.Cryptography;
using PerfLab.Common;

namespace PerfLab.Hosts;

/// <summary>
/// A file sent back over a role's session, among its other lines: <c>KIND-chunk BASE64</c> lines of at most
/// <see cref="ChunkBytes"/> bytes each, then <c>KIND-end LENGTH SHA256</c>. The session is already a stream of lines
/// (the ssh session's output), so the file needs no second connection nor a copy left on the host, for a third more
/// bytes on the wire. <see cref="ChunkReceiver"/> is the controller's end.
/// </summary>
internal static class ChunkedFile
{
    /// <summary>48 KiB a line: 64 KiB of base64, small enough to keep the role's other lines flowing between chunks.</summary>
    public const int ChunkBytes = 48 * 1024;

    public static async Task SendAsync(RoleLines lines, string kind, Stream source, CancellationToken ct)
    {
        using var hash = IncrementalHash.CreateHash(HashAlgorithmName.SHA256);
        var buffer = new byte[ChunkBytes];
        long length = 0;
        int read;
        while ((read = await source.ReadAtLeastAsync(buffer, buffer.Length, throwOnEndOfStream: false, ct)) > 0)
        {
            hash.AppendData(buffer, 0, read);
            lines.Write(kind + "-chunk", Convert.ToBase64String(buffer, 0, read));
            length += read;
        }
        lines.Write(kind + "-end",
            string.Create(CultureInfo.InvariantCulture, $"{length} {Convert.ToHexStringLower(hash.GetHashAndReset())}"));
    }
}

/// <summary>
/// The controller's end of a <see cref="ChunkedFile"/>: writes each chunk to <paramref name="target"/> as it arrives and
/// holds the file complete only when the end line's length and hash match what arrived. A session that ends first, a
/// missing or corrupted chunk fail it naming the host: a cut trace is never analysed as a whole one.
/// </summary>
/// <param name="what">The file in words, for messages ("the app's trace").</param>
internal sealed class ChunkReceiver(HostRef host, string what, Stream target) : IDisposable
{
    private readonly Lock _lock = new();
    private readonly IncrementalHash _hash = IncrementalHash.CreateHash(HashAlgorithmName.SHA256);
    private readonly TaskCompletionSource<long> _done = new(TaskCreationOptions.RunContinuationsAsynchronously);
    private long _received;
    private Action? _detach;

    /// <summary>The file's length once it arrived whole; faults with a <see cref="PerfLabException"/> naming the host.</summary>
    public Task<long> Completed => _done.Task;

    /// <summary>Receives the session's <c>KIND-chunk</c> and <c>KIND-end</c> lines until disposed.</summary>
    public void Attach(RoleSession session, string kind)
    {
        session.Handle(kind + "-chunk", Chunk);
        session.Handle(kind + "-end", End);
        _detach = () =>
        {
            session.Handle(kind + "-chunk", null);
            session.Handle(kind + "-end", null);
        };
    }

    public void Chunk(string base64)
    {
        lock (_lock)
        {
            if (_done.Task.IsCompleted)
            {
                return;
            }
            try
            {
                var bytes = Convert.FromBase64String(base64);
                target.Write(bytes);
                _hash.AppendData(bytes);
                _received += bytes.Length;
            }
            catch (FormatException)
            {
                Fail(string.Create(CultureInfo.InvariantCulture,
                    $"arrived garbled (a chunk after {_received} bytes is not base64: {Garbled(base64)})"));
            }
            catch (IOException ex)
            {
                Fail($"could not be written here: {ex.Message}");
            }
        }
    }

    public void End(string summary)
    {
        lock (_lock)
        {
            if (_done.Task.IsCompleted)
            {
                return;
            }
            var parts = summary.Split(' ');
            if (parts.Length != 2 || !long.TryParse(parts[0], NumberStyles.None, CultureInfo.InvariantCulture, out var length))
            {
                Fail($"ended with '{summary}', not its length and hash");
            }
            else if (_received != length)
            {
                Fail(string.Create(CultureInfo.InvariantCulture,
                    $"{(_received < length ? "was cut short" : "arrived too long")}: {_received} of its {length} bytes arrived"));
            }
            else if (!string.Equals(Convert.ToHexStringLower(_hash.GetHashAndReset()), parts[1], StringComparison.Ordinal))
            {
                Fail("arrived corrupted: its SHA-256 differs from the one sent");
            }
            else
            {
                target.Flush();
                _done.TrySetResult(length);
            }
        }
    }

    /// <summary>The session ended: a file not yet complete was cut short.</summary>
    public void SessionEnded()
    {
        lock (_lock)
        {
            Fail(string.Create(CultureInfo.InvariantCulture, $"was cut short: the session ended after {_received} bytes"));
        }
    }

    private static readonly System.Buffers.SearchValues<char> Base64 =
        System.Buffers.SearchValues.Create("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=");

    /// <summary>What is wrong with a chunk's line, so a garbled transfer says what got into it.</summary>
    private static string Garbled(string line)
    {
        var at = line.AsSpan().IndexOfAnyExcept(Base64);
        if (at < 0)
        {
            return string.Create(CultureInfo.InvariantCulture, $"its {line.Length} characters are base64, cut short of a whole chunk");
        }
        var from = Math.Max(0, at - 16);
        var around = line.Substring(from, Math.Min(line.Length - from, 64));
        var shown = string.Concat(around.Select(c => c is >= ' ' and < (char)127 ? c.ToString()
            : "\\u" + ((int)c).ToString("x4", CultureInfo.InvariantCulture)));
        return string.Create(CultureInfo.InvariantCulture, $"of its {line.Length} characters, character {at + 1} is not: '{shown}'");
    }

    private void Fail(string why) =>
        _done.TrySetException(new PerfLabException($"{host}: {what} {why}.", ExitCode.Unreachable));

    public void Dispose()
    {
        _detach?.Invoke();
        lock (_lock)
        {
            // A chunk after this finds the file done and writes nothing to a stream its owner may have closed.
            Fail("was given up");
            _hash.Dispose();
        }
    }
}
