
namespace PerfLab.Database;

/// <summary>
/// Deterministic AdventureWorks-shaped data: the same seed gives the same rows, value for value, on every machine.
/// Volumes and id ranges follow the real AdventureWorks tables.
/// </summary>
internal sealed class AdventureWorksData
{
    public const ulong DefaultSeed = 20110531;
    public const int HeaderCount = 31_465;
    public const int FirstSalesOrderId = 43_659;
    public const int DetailCount = 121_317;

    private AdventureWorksData(IReadOnlyList<ProductRow> products, IReadOnlyList<SalesOrderHeaderRow> headers,
        IReadOnlyList<SalesOrderDetailRow> details)
    {
        Products = products;
        Headers = headers;
        Details = details;
    }

    public IReadOnlyList<ProductRow> Products { get; }
    public IReadOnlyList<SalesOrderHeaderRow> Headers { get; }
    /// <summary>Ordered by (SalesOrderID, SalesOrderDetailID); SalesOrderDetailID runs 1..121,317.</summary>
    public IReadOnlyList<SalesOrderDetailRow> Details { get; }

    public static AdventureWorksData Generate(ulong seed = DefaultSeed)
    {
        // One generator per table, each derived from the seed: changing how one table is drawn does not shift the others.
        var products = ProductGenerator.Generate(new SplitMix64(seed ^ 0x5052_4F44UL));
        var (headers, details) = OrderGenerator.Generate(new SplitMix64(seed ^ 0x5341_4C45UL), products);
        return new AdventureWorksData(products, headers, details);
    }
}
