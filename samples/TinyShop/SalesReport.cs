using Microsoft.Extensions.Options;

namespace TinyShop;

/// <summary>Report:Cache (default false) keeps the summary once computed; Report:Orders is how many orders it covers.</summary>
public sealed class ReportOptions
{
    public const string Section = "Report";
    public bool Cache { get; set; }
    public int Orders { get; set; } = 5000;
}

public sealed record RegionTotal(string Region, decimal Revenue, int Orders);

public sealed record ReportSummary(int Orders, decimal Revenue, IReadOnlyList<RegionTotal> Regions, IReadOnlyList<int> TopProducts);

/// <summary>
/// Sales by region and the best-selling products over a fixed set of orders. Uncached, every request aggregates all
/// orders again (the CPU-heavy endpoint); with Report:Cache it does so once. The switch a team would A/B.
/// </summary>
public sealed class SalesReport
{
    private static readonly string[] Regions = ["north", "south", "east", "west", "central"];
    private readonly bool _cache;
    private readonly Order[] _orders;
    private ReportSummary? _cached;

    public SalesReport(IOptions<ReportOptions> options)
    {
        _cache = options.Value.Cache;
        _orders = Generate(options.Value.Orders);
    }

    private readonly record struct Order(int Id, string Region, int ProductId, int Quantity, decimal UnitPrice);

    public ReportSummary Summary() => _cache ? _cached ??= Compute() : Compute();

    private ReportSummary Compute()
    {
        var regions = _orders.GroupBy(o => o.Region)
            .Select(g => new RegionTotal(g.Key, g.Sum(o => o.Quantity * o.UnitPrice), g.Count()))
            .OrderByDescending(r => r.Revenue)
            .ToList();
        var top = _orders.GroupBy(o => o.ProductId)
            .OrderByDescending(g => g.Sum(o => o.Quantity))
            .ThenBy(g => g.Key)
            .Take(10)
            .Select(g => g.Key)
            .ToList();
        return new ReportSummary(_orders.Length, regions.Sum(r => r.Revenue), regions, top);
    }

    private static Order[] Generate(int count)
    {
        var random = new Random(14);
        return Enumerable.Range(1, count)
            .Select(i => new Order(i, Regions[random.Next(Regions.Length)], random.Next(1, 501), random.Next(1, 6), random.Next(500, 20000) / 100m))
            .ToArray();
    }
}
