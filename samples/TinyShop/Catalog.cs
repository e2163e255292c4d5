using System.Text.Json.Serialization;

namespace TinyShop;

public sealed record Product(int Id, string Name, string Category, decimal Price, int Stock);

public sealed record Greeting(string Text);

/// <summary>500 products, the same on every start.</summary>
public static class Catalog
{
    private static readonly string[] Categories = ["bikes", "helmets", "lights", "locks", "tools"];

    private static readonly Product[] Products = Enumerable.Range(1, 500)
        .Select(i => new Product(i, $"Product {i:000}", Categories[i % Categories.Length], 5m + (i * 37 % 1000) / 10m, i * 13 % 200))
        .ToArray();

    public static Product? Find(int id) => id >= 1 && id <= Products.Length ? Products[id - 1] : null;
}

[JsonSerializable(typeof(Product))]
[JsonSerializable(typeof(Greeting))]
[JsonSerializable(typeof(ReportSummary))]
internal sealed partial class ShopJson : JsonSerializerContext;
