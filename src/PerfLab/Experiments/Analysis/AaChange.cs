using System.Text.Json;
using System.Text.Json.Serialization;

namespace PerfLab.Experiments.Analysis;

/// <summary>
/// One recorded A/A change: its |change| in percent and the slot-to-slot spread (percent) of the experiment it was
/// measured in, null when its slots were not measured. Written {"change": 2.1, "stretch": 3.4}; a record written before
/// the stretch was kept holds bare numbers, read as changes without one.
/// </summary>
[JsonConverter(typeof(AaChangeConverter))]
public sealed record AaChange(double Change, double? Stretch);

/// <summary>Reads an <see cref="AaChange"/> from an object or a bare number (the record's older form); writes the object.</summary>
public sealed class AaChangeConverter : JsonConverter<AaChange>
{
    public override AaChange Read(ref Utf8JsonReader reader, Type typeToConvert, JsonSerializerOptions options)
    {
        if (reader.TokenType == JsonTokenType.Number)
        {
            return new AaChange(reader.GetDouble(), null);
        }
        using var doc = JsonDocument.ParseValue(ref reader);
        var root = doc.RootElement;
        if (root.ValueKind != JsonValueKind.Object || !root.TryGetProperty("change", out var change) || change.ValueKind != JsonValueKind.Number)
        {
            throw new JsonException("an A/A change is a number or {\"change\": N, \"stretch\": N}");
        }
        return new AaChange(change.GetDouble(),
            root.TryGetProperty("stretch", out var stretch) && stretch.ValueKind == JsonValueKind.Number ? stretch.GetDouble() : null);
    }

    public override void Write(Utf8JsonWriter writer, AaChange value, JsonSerializerOptions options)
    {
        writer.WriteStartObject();
        writer.WriteNumber("change", value.Change);
        if (value.Stretch is { } stretch)
        {
            writer.WriteNumber("stretch", stretch);
        }
        writer.WriteEndObject();
    }
}
