using System.Text.Json;
using System.Text.Json.Serialization;

namespace PerfLab.Results;

/// <summary>
/// A comparison's verdict: four words, never one word for two meanings (see <see cref="Statistics.Decide"/>).
/// results.json writes them in lower case.
/// </summary>
[JsonConverter(typeof(LowerCaseEnumConverter<Verdict>))]
public enum Verdict { Better, Worse, Equivalent, Inconclusive }

/// <summary>A seed article's claim against our figure: the four verdicts in the claim's terms.</summary>
[JsonConverter(typeof(LowerCaseEnumConverter<ClaimOutcome>))]
public enum ClaimOutcome { Holds, Contrary, Equivalent, Inconclusive }

/// <summary>
/// Writes an enum value as its name in lower case; reads any case. A name results.json files written before the four
/// verdicts may hold ("NoDifferenceDetected", "NotEnoughData") reads as the last value (inconclusive): those files
/// did not tell an equivalent interval from a wide one.
/// </summary>
public sealed class LowerCaseEnumConverter<T> : JsonConverter<T> where T : struct, Enum
{
    public override T Read(ref Utf8JsonReader reader, Type typeToConvert, JsonSerializerOptions options)
    {
        var text = reader.GetString();
        return Enum.TryParse<T>(text, ignoreCase: true, out var value) && Enum.IsDefined(value)
            ? value
            : Enum.GetValues<T>()[^1];
    }

    public override void Write(Utf8JsonWriter writer, T value, JsonSerializerOptions options) =>
        writer.WriteStringValue(value.ToString().ToLowerInvariant());
}
