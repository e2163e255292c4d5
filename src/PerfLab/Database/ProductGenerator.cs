namespace PerfLab.Database;

/// <summary>
/// Draws the 504 products: the raw parts first and the finished goods last, as in AdventureWorks. The order of the
/// draws from the generator is part of the pinned checksum: change it and the data change.
/// </summary>
internal static class ProductGenerator
{
    private static readonly DateTime CatalogModifiedDate = new(2014, 2, 8, 10, 1, 36, 827);
    private static readonly DateTime[] SellStartDates =
        [new(2008, 4, 30), new(2011, 5, 31), new(2012, 5, 30), new(2013, 5, 30)];

    public static List<ProductRow> Generate(SplitMix64 rng)
    {
        var finished = FinishedGoods();
        var parts = Parts(ProductCatalog.ProductCount - finished.Count);
        var rows = new List<ProductRow>(ProductCatalog.ProductCount);
        AddParts(rng, rows, parts);
        AddFinishedGoods(rng, rows, finished);
        return rows;
    }

    // Every family in every colour and size it comes in.
    private static List<(ProductCatalog.Family Family, ProductCatalog.Color? Color, string? Size)> FinishedGoods()
    {
        var finished = new List<(ProductCatalog.Family Family, ProductCatalog.Color? Color, string? Size)>();
        foreach (var family in ProductCatalog.FinishedGoods)
        {
            var colors = family.Colors.Length == 0 ? [null] : family.Colors.Cast<ProductCatalog.Color?>().ToArray();
            var sizes = family.Sizes.Length == 0 ? [null] : family.Sizes.Cast<string?>().ToArray();
            foreach (var color in colors)
            {
                foreach (var size in sizes)
                {
                    finished.Add((family, color, size));
                }
            }
        }
        return finished;
    }

    // The named raw parts, then numbered ones round-robin until the catalogue holds exactly partCount.
    private static IEnumerable<(string Name, string Number)> Parts(int partCount)
    {
        var parts = new List<(string Name, string Number)>(ProductCatalog.RawParts);
        for (var n = 1; parts.Count < partCount; n++)
        {
            var added = false;
            foreach (var (name, prefix, count) in ProductCatalog.NumberedParts)
            {
                if (n <= count && parts.Count < partCount)
                {
                    parts.Add(($"{name} {n}", $"{prefix}-{4000 + n * 7}"));
                    added = true;
                }
            }
            if (!added)
            {
                throw new InvalidOperationException("The product catalogue has too few parts to fill 504 products.");
            }
        }
        return parts.Take(partCount);
    }

    private static void AddParts(SplitMix64 rng, List<ProductRow> rows, IEnumerable<(string Name, string Number)> parts)
    {
        foreach (var (name, number) in parts)
        {
            var id = rows.Count + 1;
            rows.Add(new ProductRow(id, name, number, MakeFlag: rng.Chance(0.4), FinishedGoodsFlag: false, Color: null,
                SafetyStockLevel: 1000, ReorderPoint: 750, StandardCost: 0m, ListPrice: 0m, Size: null,
                SizeUnitMeasureCode: null, WeightUnitMeasureCode: null, Weight: null, DaysToManufacture: rng.Next(0, 2),
                ProductLine: null, Class: null, Style: null, ProductSubcategoryId: null, ProductModelId: null,
                SellStartDate: SellStartDates[0], SellEndDate: null, DiscontinuedDate: null, rng.NextGuid(),
                CatalogModifiedDate));
        }
    }

    private static void AddFinishedGoods(SplitMix64 rng, List<ProductRow> rows,
        List<(ProductCatalog.Family Family, ProductCatalog.Color? Color, string? Size)> finished)
    {
        var modelId = 0;
        ProductCatalog.Family? previous = null;
        foreach (var (family, color, size) in finished)
        {
            if (!ReferenceEquals(family, previous))
            {
                modelId++;
                previous = family;
            }
            rows.Add(FinishedGood(rng, rows.Count + 1, modelId, family, color, size));
        }
    }

    private static ProductRow FinishedGood(SplitMix64 rng, int id, int modelId, ProductCatalog.Family family,
        ProductCatalog.Color? color, string? size)
    {
        var (name, number) = NameOf(family, color, size);
        var numericSize = size is not null && char.IsAsciiDigit(size[0]);
        var listPrice = family.ListPrice;
        var standardCost = decimal.Round(listPrice * 0.55m, 4);
        var made = family.Style is ProductCatalog.NameStyle.Frame or ProductCatalog.NameStyle.Bike;
        var sellStart = SellStartDates[rng.Next(1, SellStartDates.Length)];
        DateTime? sellEnd = rng.Chance(0.25) ? sellStart.AddYears(1) : null;
        decimal? weight = family.Weight is { } w ? w + rng.Next(0, 60) / 100m : null;
        return new ProductRow(id, name, number, made, FinishedGoodsFlag: true, color?.Name,
            SafetyStockLevel: (short)(made ? 100 : 4), ReorderPoint: (short)(made ? 75 : 3), standardCost,
            listPrice, size, numericSize ? "CM " : null, weight is null ? null : "LB ", weight, family.Days,
            Pad(family.Line), Pad(family.Class), Pad(family.ProductStyle), family.Subcategory, modelId, sellStart,
            sellEnd, DiscontinuedDate: null, rng.NextGuid(), CatalogModifiedDate);
    }

    private static (string Name, string Number) NameOf(ProductCatalog.Family family, ProductCatalog.Color? color,
        string? size) => family.Style switch
    {
        ProductCatalog.NameStyle.Frame => ($"{family.Name} - {color!.Name}, {size}", $"{family.Number}{color.Code}-{size}"),
        ProductCatalog.NameStyle.Bike => ($"{family.Name} {color!.Name}, {size}", $"{family.Number}{color.Code}-{size}"),
        ProductCatalog.NameStyle.Sized => ($"{family.Name}, {size}", $"{family.Number}-{size}"),
        ProductCatalog.NameStyle.Colored => ($"{family.Name}, {color!.Name}", $"{family.Number}-{color.Code}"),
        _ => (family.Name, family.Number),
    };

    // char(n) columns: pad as PostgreSQL stores them, so the checksum and a read-back agree.
    private static string? Pad(string? value) => value?.PadRight(2);
}
