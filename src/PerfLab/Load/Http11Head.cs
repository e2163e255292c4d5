using System.Buffers.Text;
using System.Text;

namespace PerfLab.Load;

/// <summary>The status line and headers of an HTTP/1.1 response: what the connection needs to read its body.</summary>
internal static class Http11Head
{
    public readonly record struct Head(int Status, long ContentLength, bool Chunked, bool Close);

    public static Head Parse(ReadOnlySpan<byte> head)
    {
        var lineEnd = head.IndexOf("\r\n"u8);
        var statusLine = lineEnd < 0 ? head : head[..lineEnd];
        if (statusLine.Length < 12 || !statusLine.StartsWith("HTTP/1."u8) || statusLine[8] != ' '
            || !Utf8Parser.TryParse(statusLine.Slice(9, 3), out int status, out var consumed) || consumed != 3)
        {
            throw new Http11ProtocolException($"not an HTTP/1.x status line: '{Printable(statusLine)}'");
        }
        var http10 = statusLine[7] == (byte)'0';
        long contentLength = -1;
        var chunked = false;
        var close = http10;
        var rest = lineEnd < 0 ? [] : head[(lineEnd + 2)..];
        while (!rest.IsEmpty)
        {
            var end = rest.IndexOf("\r\n"u8);
            var line = end < 0 ? rest : rest[..end];
            rest = end < 0 ? [] : rest[(end + 2)..];
            var colon = line.IndexOf((byte)':');
            // Three names matter, and a name's length (the colon's place) tells every other header of a usual response
            // apart without comparing or trimming anything: Content-Type, Date and Server cost one switch each.
            switch (colon)
            {
                case 14 when Ascii.EqualsIgnoreCase(line[..colon], "content-length"u8):
                    var length = Value(line, colon);
                    if (!Utf8Parser.TryParse(length, out contentLength, out var used) || used != length.Length || contentLength < 0)
                    {
                        throw new Http11ProtocolException($"invalid Content-Length '{Printable(length)}'");
                    }
                    break;
                case 17 when Ascii.EqualsIgnoreCase(line[..colon], "transfer-encoding"u8):
                    var coding = Value(line, colon);
                    chunked = coding.Length >= 7 && Ascii.EqualsIgnoreCase(coding[^7..], "chunked"u8);
                    break;
                case 10 when Ascii.EqualsIgnoreCase(line[..colon], "connection"u8):
                    var options = Value(line, colon);
                    close = ContainsToken(options, "close"u8) || (http10 && !ContainsToken(options, "keep-alive"u8));
                    break;
            }
        }
        return new Head(status, chunked ? -1 : contentLength, chunked, close);
    }

    private static ReadOnlySpan<byte> Value(ReadOnlySpan<byte> line, int colon) => line[(colon + 1)..].Trim((byte)' ').Trim((byte)'\t');

    private static bool ContainsToken(ReadOnlySpan<byte> value, ReadOnlySpan<byte> token)
    {
        foreach (var range in value.Split((byte)','))
        {
            if (Ascii.EqualsIgnoreCase(value[range].Trim((byte)' '), token))
            {
                return true;
            }
        }
        return false;
    }

    public static string Printable(ReadOnlySpan<byte> bytes)
    {
        var text = Encoding.ASCII.GetString(bytes[..Math.Min(bytes.Length, 80)]);
        return new string([.. text.Select(c => c is >= ' ' and < (char)127 ? c : '?')]);
    }
}
