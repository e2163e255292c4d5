using System.Globalization;
using System.Text;
using PerfLab.Common;

namespace PerfLab.Load;

/// <summary>
/// What each request of a scenario sends, beyond its URL, and how its response is checked. The body may hold the
/// feed's <c>{placeholder}</c> (as the URL does), filled per request with the same value as the URL.
/// </summary>
public sealed record RequestSpec
{
    /// <summary>A plain GET with no check beyond "a status below 400": what the engine sent before requests had a shape.</summary>
    public static RequestSpec Get { get; } = new();

    public string Method { get; init; } = "GET";

    /// <summary>Extra request headers, in order. Host may be overridden; Content-Length is always perflab's own.</summary>
    public IReadOnlyList<KeyValuePair<string, string>> Headers { get; init; } = [];

    /// <summary>The body's bytes (UTF-8 text or a file's bytes as they are); null: no body.</summary>
    public byte[]? Body { get; init; }

    /// <summary>How a response counts as a success; null: any status below 400.</summary>
    public ResponseCheck? Check { get; init; }

    /// <summary>Content-Type sent with a body when no header names one: most APIs a body is sent to read JSON.</summary>
    public const string DefaultContentType = "application/json";

    private static readonly string[] s_ownHeaders = ["Content-Length", "Transfer-Encoding"];

    /// <summary>Throws a usage error naming what is wrong: a method or header that cannot go on the wire as written.</summary>
    public void Validate()
    {
        if (Method.Length == 0 || !Method.All(IsTokenChar))
        {
            throw new PerfLabException($"'{Method}' is not an HTTP method (letters such as GET, POST, PUT, PATCH, DELETE).",
                ExitCode.Usage);
        }
        foreach (var (name, value) in Headers)
        {
            if (name.Length == 0 || !name.All(IsTokenChar))
            {
                throw new PerfLabException($"'{name}' is not a header name; write headers as \"Name: value\".", ExitCode.Usage);
            }
            if (value.Any(c => c is '\r' or '\n' || c > 0x7e))
            {
                throw new PerfLabException($"the value of header '{name}' holds a line break or a non-ASCII character.", ExitCode.Usage);
            }
            if (s_ownHeaders.Contains(name, StringComparer.OrdinalIgnoreCase))
            {
                throw new PerfLabException($"header '{name}' is set by perflab from the body; leave it out.", ExitCode.Usage);
            }
        }
    }

    /// <summary>Parses "Name: value" as curl -H writes it.</summary>
    public static KeyValuePair<string, string> ParseHeader(string text)
    {
        var colon = text.IndexOf(':', StringComparison.Ordinal);
        if (colon <= 0)
        {
            throw new PerfLabException($"header '{text}' has no name: write it as \"Name: value\" (e.g. -H \"Content-Type: "
                + $"application/json\").", ExitCode.Usage);
        }
        return new(text[..colon].Trim(), text[(colon + 1)..].Trim());
    }

    public bool HasHeader(string name) => Headers.Any(h => string.Equals(h.Key, name, StringComparison.OrdinalIgnoreCase));

    /// <summary>In words, for displays: "POST, 2 headers, 41-byte body, expects 201 and $.id=5".</summary>
    public string Describe()
    {
        var parts = new List<string> { Method };
        if (Headers.Count > 0)
        {
            parts.Add(Headers.Count == 1 ? "1 header" : string.Create(CultureInfo.InvariantCulture, $"{Headers.Count} headers"));
        }
        if (Body is { } body)
        {
            parts.Add(string.Create(CultureInfo.InvariantCulture, $"{body.Length}-byte body"));
        }
        if (Check is { } check)
        {
            parts.Add("expects " + check.Describe());
        }
        return string.Join(", ", parts);
    }

    private static bool IsTokenChar(char c) =>
        c is (>= 'a' and <= 'z') or (>= 'A' and <= 'Z') or (>= '0' and <= '9') || "!#$%&'*+-.^_`|~".Contains(c, StringComparison.Ordinal);

    public static byte[] Utf8(string text) => Encoding.UTF8.GetBytes(text);
}

/// <summary>
/// What a successful response looks like: a status among <see cref="Statuses"/> (null: any below 400) and every JSON
/// value in <see cref="Json"/>. A response that fails counts as an error: an unexpected status by its code
/// ("http-500", or "unexpected-http-200" for one below 400), a JSON value that does not match as "check-json".
/// </summary>
public sealed record ResponseCheck(StatusSet? Statuses, IReadOnlyList<JsonExpectation> Json)
{
    public string Describe() => string.Join(" and ",
        (Statuses is null ? [] : new[] { Statuses.Text }).Concat(Json.Select(j => j.Text)));
}

/// <summary>Expected statuses written as "201", "200,201" or "2xx" (as k6's expectedStatuses, with classes).</summary>
public sealed record StatusSet(string Text, IReadOnlyList<(int From, int To)> Ranges)
{
    public bool Contains(int status) => Ranges.Any(r => status >= r.From && status <= r.To);

    public static StatusSet Parse(IEnumerable<string> texts)
    {
        var items = texts.SelectMany(t => t.Split(',', StringSplitOptions.TrimEntries | StringSplitOptions.RemoveEmptyEntries)).ToList();
        if (items.Count == 0)
        {
            throw new PerfLabException("expected status: give a status such as 201, a list such as 200,201 or a class such as 2xx.",
                ExitCode.Usage);
        }
        var ranges = new List<(int, int)>();
        foreach (var item in items)
        {
            if (item.Length == 3 && item[0] is >= '1' and <= '5' && item[1..].Equals("xx", StringComparison.OrdinalIgnoreCase))
            {
                var hundreds = (item[0] - '0') * 100;
                ranges.Add((hundreds, hundreds + 99));
            }
            else if (int.TryParse(item, NumberStyles.None, CultureInfo.InvariantCulture, out var code) && code is >= 100 and <= 599)
            {
                ranges.Add((code, code));
            }
            else
            {
                throw new PerfLabException($"expected status '{item}' is not a status from 100 to 599 or a class such as 2xx.",
                    ExitCode.Usage);
            }
        }
        return new StatusSet(string.Join(",", items), ranges);
    }
}
