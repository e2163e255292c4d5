using System.Runtime.CompilerServices;
using System.Text.Json;
using System.Text.Json.Serialization;

namespace PerfLab.Load;

/// <summary>
/// Writes a scenario result's model as its kind ("closed"), the shape `perflab load --json` has always had: the model's
/// sizes stand in the result's own fields (concurrency, open.rate, burst.batchSize, ramp), which is where
/// <see cref="LoadModel.SizeOf"/> reads them. Read back, a model is its case with its sizes left at zero.
/// </summary>
public sealed class LoadModelKindConverter : JsonConverter<LoadModel>
{
    public override LoadModel Read(ref Utf8JsonReader reader, Type typeToConvert, JsonSerializerOptions options)
    {
        var kind = reader.GetString();
        var model = LoadModel.Cases.FirstOrDefault(c => c.Kind == kind)
            ?? throw new JsonException($"'{kind}' is not a load model (one of {string.Join(", ", LoadModel.Kinds)})");
        return (LoadModel)RuntimeHelpers.GetUninitializedObject(model.Type);
    }

    public override void Write(Utf8JsonWriter writer, LoadModel value, JsonSerializerOptions options) =>
        writer.WriteStringValue(value.Kind);
}
