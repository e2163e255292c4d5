using System.Globalization;
using System.Text;
using System.Text.Json;
using PerfLab.Common;

namespace PerfLab.Load;

/// <summary>
/// A value expected in a JSON response: a simple path (<c>$.total</c>, <c>items[0].id</c>, <c>$.a.b[2]</c>) and
/// optionally the value it must hold (<c>$.id=5</c>, <c>$.name="Bike"</c>, <c>$.ok=true</c>, <c>$.x=null</c>; a bare
/// word is a string). Without a value the path must exist. Checked with a <see cref="Utf8JsonReader"/> over the body:
/// nothing is allocated per response, and the parts of the document off the path are skipped, not parsed into objects.
/// </summary>
public sealed class JsonExpectation
{
    private enum Kind { Exists, Number, Text, True, False, Null }

    private readonly object[] _segments; // byte[] (a property name, UTF-8) or int (an array index)
    private readonly Kind _kind;
    private readonly double _number;
    private readonly byte[] _text;

    private JsonExpectation(string text, object[] segments, Kind kind, double number, byte[] value)
    {
        Text = text;
        _segments = segments;
        _kind = kind;
        _number = number;
        _text = value;
    }

    /// <summary>As written, e.g. "$.id=5".</summary>
    public string Text { get; }

    public override string ToString() => Text;

    public static JsonExpectation Parse(string text)
    {
        var equals = text.IndexOf('=', StringComparison.Ordinal);
        var path = (equals < 0 ? text : text[..equals]).Trim();
        var segments = ParsePath(path, text);
        if (equals < 0)
        {
            return new JsonExpectation(text, segments, Kind.Exists, 0, []);
        }
        var value = text[(equals + 1)..].Trim();
        if (value.Length == 0)
        {
            throw Invalid(text, "nothing after '=': give the value, e.g. $.id=5 or $.name=\"Bike\", or leave out '=' to "
                + "require only that the path exists");
        }
        return value switch
        {
            "true" => new JsonExpectation(text, segments, Kind.True, 0, []),
            "false" => new JsonExpectation(text, segments, Kind.False, 0, []),
            "null" => new JsonExpectation(text, segments, Kind.Null, 0, []),
            _ when value.Length >= 2 && value[0] == '"' && value[^1] == '"' =>
                new JsonExpectation(text, segments, Kind.Text, 0, Encoding.UTF8.GetBytes(value[1..^1])),
            _ when double.TryParse(value, NumberStyles.Float, CultureInfo.InvariantCulture, out var number) && double.IsFinite(number) =>
                new JsonExpectation(text, segments, Kind.Number, number, []),
            _ => new JsonExpectation(text, segments, Kind.Text, 0, Encoding.UTF8.GetBytes(value)),
        };
    }

    private static object[] ParsePath(string path, string text)
    {
        var rest = path.StartsWith('$') ? path[1..] : "." + path;
        var segments = new List<object>();
        var i = 0;
        while (i < rest.Length)
        {
            if (rest[i] == '.')
            {
                var end = rest.IndexOfAny(['.', '['], i + 1);
                end = end < 0 ? rest.Length : end;
                var name = rest[(i + 1)..end];
                if (name.Length == 0)
                {
                    throw Invalid(text, "an empty property name (two dots, or a dot at the end)");
                }
                segments.Add(Encoding.UTF8.GetBytes(name));
                i = end;
            }
            else if (rest[i] == '[')
            {
                var close = rest.IndexOf(']', i);
                if (close < 0 || !int.TryParse(rest.AsSpan(i + 1, close - i - 1), NumberStyles.None, CultureInfo.InvariantCulture,
                    out var index))
                {
                    throw Invalid(text, "an array index must be a whole number in brackets, e.g. items[0]");
                }
                segments.Add(index);
                i = close + 1;
            }
            else
            {
                throw Invalid(text, $"unexpected '{rest[i]}' at position {i}; write the path as $.a.b[0].c");
            }
        }
        return [.. segments];
    }

    private static PerfLabException Invalid(string text, string why) =>
        new($"JSON check '{text}': {why}.", ExitCode.Usage);

    /// <summary>
    /// True when <paramref name="json"/> holds the expected value
    /// at the path; false for anything else, invalid JSON included.
    /// </summary>
    public bool Matches(ReadOnlySpan<byte> json)
    {
        var reader = new Utf8JsonReader(json, new JsonReaderOptions { CommentHandling = JsonCommentHandling.Skip, MaxDepth = 256 });
        try
        {
            if (!reader.Read())
            {
                return false;
            }
            foreach (var segment in _segments)
            {
                if (!(segment is int index ? EnterIndex(ref reader, index) : EnterProperty(ref reader, (byte[])segment)))
                {
                    return false;
                }
            }
            return _kind switch
            {
                Kind.Exists => true,
                Kind.Number => reader.TokenType == JsonTokenType.Number && reader.TryGetDouble(out var d) && d == _number,
                Kind.Text => reader.TokenType == JsonTokenType.String && reader.ValueTextEquals(_text),
                Kind.True => reader.TokenType == JsonTokenType.True,
                Kind.False => reader.TokenType == JsonTokenType.False,
                _ => reader.TokenType == JsonTokenType.Null,
            };
        }
        catch (JsonException)
        {
            return false;
        }
    }

    /// <summary>From a StartObject to the value of <paramref name="name"/>.</summary>
    private static bool EnterProperty(ref Utf8JsonReader reader, byte[] name)
    {
        if (reader.TokenType != JsonTokenType.StartObject)
        {
            return false;
        }
        while (reader.Read() && reader.TokenType == JsonTokenType.PropertyName)
        {
            var found = reader.ValueTextEquals(name);
            if (!reader.Read())
            {
                return false;
            }
            if (found)
            {
                return true;
            }
            reader.Skip();
        }
        return false;
    }

    /// <summary>From a StartArray to its element <paramref name="index"/>.</summary>
    private static bool EnterIndex(ref Utf8JsonReader reader, int index)
    {
        if (reader.TokenType != JsonTokenType.StartArray)
        {
            return false;
        }
        for (var i = 0; reader.Read() && reader.TokenType != JsonTokenType.EndArray; i++)
        {
            if (i == index)
            {
                return true;
            }
            reader.Skip();
        }
        return false;
    }
}
