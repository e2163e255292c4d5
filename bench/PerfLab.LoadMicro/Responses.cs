using System.Text;

namespace PerfLab.LoadMicro;

/// <summary>
/// Responses as the SUT's Kestrel sends them: /plaintext (13 bytes, Content-Length) and /info (1.6 KB of JSON,
/// chunked), whole, and /info as two pieces ("info-split": the head with the JSON chunk, then the last chunk, as when
/// the server's final flush travels in a segment of its own).
/// </summary>
internal static class Responses
{
    public const string PlaintextHead =
        "HTTP/1.1 200 OK\r\nContent-Length: 13\r\nContent-Type: text/plain\r\nDate: Thu, 26 Nov 2026 10:00:00 GMT\r\nServer: Kestrel";

    public const string InfoHead =
        "HTTP/1.1 200 OK\r\nContent-Type: application/json; charset=utf-8\r\nDate: Thu, 26 Nov 2026 10:00:00 GMT\r\n"
        + "Server: Kestrel\r\nTransfer-Encoding: chunked";

    public static byte[] Whole(string name) => name switch
    {
        "plaintext" => Encoding.ASCII.GetBytes(PlaintextHead + "\r\n\r\nHello, World!"),
        "info" => Encoding.ASCII.GetBytes(InfoHead + "\r\n\r\n" + Chunked(InfoBody())),
        _ => throw new ArgumentException($"no canned response '{name}'", nameof(name)),
    };

    /// <summary>The response as the socket delivers it: one piece, or two for "info-split".</summary>
    public static byte[][] Pieces(string name)
    {
        if (name != "info-split")
        {
            return [Whole(name)];
        }
        var whole = Whole("info");
        var last = "0\r\n\r\n"u8.Length;
        return [whole[..^last], whole[^last..]];
    }

    public static string Head(string name) => name.StartsWith("info", StringComparison.Ordinal) ? InfoHead : PlaintextHead;

    /// <summary>A JSON object of about 1.6 KB, like the SUT's /info.</summary>
    private static string InfoBody()
    {
        var fields = Enumerable.Range(0, 40).Select(i => $"\"setting{i:00}\":\"value of the setting number {i:00}\"");
        return "{" + string.Join(",", fields) + "}";
    }

    private static string Chunked(string body) => $"{Encoding.UTF8.GetByteCount(body):x}\r\n{body}\r\n0\r\n\r\n";
}
