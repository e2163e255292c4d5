using System.Buffers.Text;
using System.Text;

namespace PerfLab.Load;

/// <summary>
/// The bytes of a scenario's requests, made once before the run. When nothing varies but the URL, every request is
/// encoded whole, once per feed value, and sent as is. When the body holds the feed's <c>{placeholder}</c>, each
/// request is written into its user's own reused buffer (head of its URL, Content-Length, the body's fixed parts and
/// the value's pre-encoded bytes): nothing is allocated per request either way, and memory stays one buffer per user
/// however large the feed.
/// </summary>
internal sealed class RequestTemplate
{
    private readonly Uri[] _uris;
    private readonly byte[][]? _whole;          // one complete request per index, when the body does not vary
    private readonly byte[][]? _heads;          // per URL: request line and headers, without Content-Length
    private readonly byte[][]? _bodyParts;      // the body split at the placeholder: parts[0] value parts[1] value ...
    private readonly byte[][]? _valueBytes;     // per feed value, its UTF-8 bytes as they go into the body
    private readonly int _fixedBodyLength;      // the body's bytes outside its placeholders

    public RequestTemplate(RequestSpec spec, Uri[] uris, IReadOnlyList<string>? values, string? placeholder)
    {
        Spec = spec;
        _uris = uris;
        var parts = spec.Body is { } body && placeholder is not null ? Split(body, Encoding.UTF8.GetBytes("{" + placeholder + "}")) : null;
        var varies = parts is { Length: > 1 } && values is { Count: > 0 };
        Count = Math.Max(uris.Length, varies ? values!.Count : 1);
        if (varies)
        {
            if (uris.Length > 1 && uris.Length != values!.Count)
            {
                throw new InvalidOperationException("a feed fills the URL and the body from the same values");
            }
            _bodyParts = parts;
            _fixedBodyLength = parts!.Sum(p => p.Length);
            _valueBytes = [.. values!.Select(v => Encoding.UTF8.GetBytes(v))];
            _heads = [.. uris.Select(u => Encoding.ASCII.GetBytes(Head(spec, u)))];
        }
        else
        {
            _whole = new byte[Count][];
            for (var i = 0; i < Count; i++)
            {
                _whole[i] = Whole(spec, UriAt(i));
            }
        }
    }

    public RequestSpec Spec { get; }

    /// <summary>How many different requests there are: the feed's values, or 1.</summary>
    public int Count { get; }

    /// <summary>True when each request is written into its user's buffer because its body varies.</summary>
    public bool PerRequest => _bodyParts is not null;

    public Uri UriAt(int index) => _uris.Length == 1 ? _uris[0] : _uris[index];

    /// <summary>
    /// The bytes of request <paramref name="index"/>: pre-encoded, or
    /// written into <paramref name="scratch"/> (grown when too small).
    /// </summary>
    public ReadOnlyMemory<byte> For(int index, ref byte[] scratch)
    {
        if (_whole is not null)
        {
            return _whole[index];
        }
        var head = _heads![_uris.Length == 1 ? 0 : index];
        var value = _valueBytes![index];
        var bodyLength = BodyLength(value);
        var length = head.Length + 40 + bodyLength;
        if (scratch.Length < length)
        {
            scratch = new byte[Math.Max(Math.Max(length, 1024), scratch.Length * 2)];
        }
        var span = scratch.AsSpan();
        head.CopyTo(span);
        var at = head.Length;
        at += Write(span[at..], "Content-Length: "u8);
        Utf8Formatter.TryFormat(bodyLength, span[at..], out var digits);
        at += digits;
        at += Write(span[at..], "\r\n\r\n"u8);
        at += WriteBody(span[at..], value);
        return scratch.AsMemory(0, at);
    }

    /// <summary>The body of request <paramref name="index"/> for HttpClient (a new array when the body varies); null: none.</summary>
    public byte[]? BodyFor(int index)
    {
        if (_bodyParts is null)
        {
            return Spec.Body;
        }
        var value = _valueBytes![index];
        var body = new byte[BodyLength(value)];
        WriteBody(body, value);
        return body;
    }

    private int BodyLength(byte[] value) => _fixedBodyLength + ((_bodyParts!.Length - 1) * value.Length);

    private int WriteBody(Span<byte> target, byte[] value)
    {
        var at = 0;
        for (var i = 0; i < _bodyParts!.Length; i++)
        {
            if (i > 0)
            {
                at += Write(target[at..], value);
            }
            at += Write(target[at..], _bodyParts[i]);
        }
        return at;
    }

    private static int Write(Span<byte> target, ReadOnlySpan<byte> source)
    {
        source.CopyTo(target);
        return source.Length;
    }

    /// <summary>GET without a body encodes exactly as it always did: request line, Host, blank line.</summary>
    public static byte[] Whole(RequestSpec spec, Uri uri)
    {
        var head = Head(spec, uri);
        if (spec.Body is null)
        {
            return Encoding.ASCII.GetBytes(NeedsLength(spec.Method) ? head + "Content-Length: 0\r\n\r\n" : head + "\r\n");
        }
        var headBytes = Encoding.ASCII.GetBytes(head + $"Content-Length: {spec.Body.Length}\r\n\r\n");
        return [.. headBytes, .. spec.Body];
    }

    /// <summary>Request line and headers, each line ending in CRLF, without Content-Length and the blank line.</summary>
    private static string Head(RequestSpec spec, Uri uri)
    {
        var sb = new StringBuilder();
        sb.Append(spec.Method).Append(' ').Append(uri.PathAndQuery).Append(" HTTP/1.1\r\n");
        if (!spec.HasHeader("Host"))
        {
            sb.Append("Host: ").Append(uri.Authority).Append("\r\n");
        }
        foreach (var (name, value) in spec.Headers)
        {
            sb.Append(name).Append(": ").Append(value).Append("\r\n");
        }
        if (spec.Body is not null && !spec.HasHeader("Content-Type"))
        {
            sb.Append("Content-Type: ").Append(RequestSpec.DefaultContentType).Append("\r\n");
        }
        return sb.ToString();
    }

    // RFC 9110 8.6: a request whose method expects content says so even when it is empty, as curl does.
    private static bool NeedsLength(string method) => method is "POST" or "PUT" or "PATCH";

    private static byte[][] Split(byte[] body, byte[] token)
    {
        var parts = new List<byte[]>();
        var rest = body.AsSpan();
        int at;
        while ((at = rest.IndexOf(token)) >= 0)
        {
            parts.Add(rest[..at].ToArray());
            rest = rest[(at + token.Length)..];
        }
        parts.Add(rest.ToArray());
        return [.. parts];
    }

    /// <summary>Request <paramref name="index"/> for HttpClient: method, headers (content headers on the content), body.</summary>
    public HttpRequestMessage Message(int index, Version version, HttpVersionPolicy versionPolicy)
    {
        var spec = Spec;
        var request = new HttpRequestMessage(new HttpMethod(spec.Method), UriAt(index))
        {
            Version = version,
            VersionPolicy = versionPolicy,
        };
        if (BodyFor(index) is { } body)
        {
            request.Content = new ByteArrayContent(body);
            if (!spec.HasHeader("Content-Type"))
            {
                request.Content.Headers.TryAddWithoutValidation("Content-Type", RequestSpec.DefaultContentType);
            }
        }
        foreach (var (name, value) in spec.Headers)
        {
            if (!request.Headers.TryAddWithoutValidation(name, value))
            {
                request.Content ??= new ByteArrayContent([]);
                request.Content.Headers.TryAddWithoutValidation(name, value);
            }
        }
        return request;
    }
}
