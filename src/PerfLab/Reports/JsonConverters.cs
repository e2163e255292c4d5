using System.Globalization;
using System.Text.Json;
using System.Text.Json.Serialization;

namespace PerfLab.Reports;

/// <summary>
/// A figure results.json cannot give (a mean of nothing, an interval of one sample) is written as null: JSON has no
/// NaN, and the string "NaN" made every reader (jq, Python, a spreadsheet) special-case a number column. Reads null
/// as NaN, and the named literals ("NaN", "Infinity") results.json files of schema version 1 hold.
/// </summary>
internal sealed class FiniteOrNullConverter : JsonConverter<double>
{
    public override bool HandleNull => true;

    public override double Read(ref Utf8JsonReader reader, Type typeToConvert, JsonSerializerOptions options) => reader.TokenType switch
    {
        JsonTokenType.Null => double.NaN,
        JsonTokenType.String => reader.GetString() switch
        {
            "Infinity" => double.PositiveInfinity,
            "-Infinity" => double.NegativeInfinity,
            "NaN" => double.NaN,
            var other => double.Parse(other!, NumberStyles.Float, CultureInfo.InvariantCulture),
        },
        _ => reader.GetDouble(),
    };

    public override void Write(Utf8JsonWriter writer, double value, JsonSerializerOptions options)
    {
        if (double.IsFinite(value))
        {
            writer.WriteNumberValue(value);
        }
        else
        {
            writer.WriteNullValue();
        }
    }
}

/// <summary>
/// A duration as seconds, a number (40, 2.5): "00:00:40" needed a parser in every reader. Reads the "hh:mm:ss" text of
/// schema version 1 too.
/// </summary>
internal sealed class SecondsConverter : JsonConverter<TimeSpan>
{
    public override TimeSpan Read(ref Utf8JsonReader reader, Type typeToConvert, JsonSerializerOptions options) =>
        reader.TokenType == JsonTokenType.String
            ? TimeSpan.Parse(reader.GetString()!, CultureInfo.InvariantCulture)
            : TimeSpan.FromSeconds(reader.GetDouble());

    public override void Write(Utf8JsonWriter writer, TimeSpan value, JsonSerializerOptions options) =>
        writer.WriteNumberValue(value.TotalSeconds);
}
