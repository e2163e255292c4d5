using System.Text.Json;
using System.Text.Json.Serialization;
using PerfLab.Sut.Data;

namespace PerfLab.Sut.Serialization;

/// <summary>The source-generated metadata of the system-text-json-sourcegen variant (web defaults: camelCase).</summary>
[JsonSourceGenerationOptions(JsonSerializerDefaults.Web)]
[JsonSerializable(typeof(SalesOrderHeader))]
[JsonSerializable(typeof(List<SalesOrderHeader>))]
[JsonSerializable(typeof(List<Product>))]
[JsonSerializable(typeof(List<int>))]
[JsonSerializable(typeof(int))]
public sealed partial class SutJsonContext : JsonSerializerContext;
