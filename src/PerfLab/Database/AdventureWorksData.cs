using PerfLab.Common;

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

    private const int MaxOnlineLines = 8;
    private const int MaxResellerLines = 30;
    private const double ResellerShare = 0.121;

    private static readonly DateTime FirstOrderDate = new(2011, 5, 31);
    private static readonly DateTime LastOrderDate = new(2014, 6, 30);
    private static readonly DateTime CatalogModifiedDate = new(2014, 2, 8, 10, 1, 36, 827);
    private static readonly DateTime[] SellStartDates =
        [new(2008, 4, 30), new(2011, 5, 31), new(2012, 5, 30), new(2013, 5, 30)];
    private static readonly string[] Comments =
        ["Deliver to the loading dock.", "Call before delivery.", "Gift wrap, please.", "Leave at the front desk."];
    private static readonly (int SpecialOfferId, decimal Discount)[] ResellerOffers =
        [(2, 0.02m), (3, 0.05m), (4, 0.10m), (7, 0.15m)];

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
        var products = GenerateProducts(new SplitMix64(seed ^ 0x5052_4F44UL));
        var (headers, details) = GenerateOrders(new SplitMix64(seed ^ 0x5341_4C45UL), products);
        return new AdventureWorksData(products, headers, details);
    }

    private static List<ProductRow> GenerateProducts(SplitMix64 rng)
    {
        var finished = FinishedCombinations();
        var partCount = ProductCatalog.ProductCount - finished.Count;
        var parts = PartNames(partCount);

        // As in AdventureWorks, the raw parts come first and the finished goods last.
        var rows = new List<ProductRow>(ProductCatalog.ProductCount);
        foreach (var (name, number) in parts.Take(partCount))
        {
            var id = rows.Count + 1;
            rows.Add(new ProductRow(id, name, number, MakeFlag: rng.Chance(0.4), FinishedGoodsFlag: false, Color: null,
                SafetyStockLevel: 1000, ReorderPoint: 750, StandardCost: 0m, ListPrice: 0m, Size: null,
                SizeUnitMeasureCode: null, WeightUnitMeasureCode: null, Weight: null, DaysToManufacture: rng.Next(0, 2),
                ProductLine: null, Class: null, Style: null, ProductSubcategoryId: null, ProductModelId: null,
                SellStartDate: SellStartDates[0], SellEndDate: null, DiscontinuedDate: null, rng.NextGuid(),
                CatalogModifiedDate));
        }
        AddFinishedGoods(rows, finished, rng);
        return rows;
    }

    private static List<(ProductCatalog.Family Family, ProductCatalog.Color? Color, string? Size)> FinishedCombinations()
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

    private static List<(string Name, string Number)> PartNames(int partCount)
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
        return parts;
    }

    private static void AddFinishedGoods(List<ProductRow> rows,
        List<(ProductCatalog.Family Family, ProductCatalog.Color? Color, string? Size)> finished, SplitMix64 rng)
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
            var id = rows.Count + 1;
            var (name, number) = NameOf(family, color, size);
            var numericSize = size is not null && char.IsAsciiDigit(size[0]);
            var listPrice = family.ListPrice;
            var standardCost = decimal.Round(listPrice * 0.55m, 4);
            var made = family.Style is ProductCatalog.NameStyle.Frame or ProductCatalog.NameStyle.Bike;
            var sellStart = SellStartDates[rng.Next(1, SellStartDates.Length)];
            DateTime? sellEnd = rng.Chance(0.25) ? sellStart.AddYears(1) : null;
            decimal? weight = family.Weight is { } w ? w + rng.Next(0, 60) / 100m : null;
            rows.Add(new ProductRow(id, name, number, made, FinishedGoodsFlag: true, color?.Name,
                SafetyStockLevel: (short)(made ? 100 : 4), ReorderPoint: (short)(made ? 75 : 3), standardCost,
                listPrice, size, numericSize ? "CM " : null, weight is null ? null : "LB ", weight, family.Days,
                Pad(family.Line), Pad(family.Class), Pad(family.ProductStyle), family.Subcategory, modelId, sellStart,
                sellEnd, DiscontinuedDate: null, rng.NextGuid(), CatalogModifiedDate));
        }
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

    private static (List<SalesOrderHeaderRow>, List<SalesOrderDetailRow>) GenerateOrders(SplitMix64 rng,
        IReadOnlyList<ProductRow> products)
    {
        var sellable = products.Where(p => p.FinishedGoodsFlag).ToArray();
        var goods = new Goods(sellable, sellable.Where(p => p.Weight is > 10m).ToArray(), sellable.Where(p => p.Weight is null).ToArray());
        var (reseller, lines) = LineCounts(rng);

        var headers = new List<SalesOrderHeaderRow>(HeaderCount);
        var details = new List<SalesOrderDetailRow>(DetailCount);
        var spanDays = (LastOrderDate - FirstOrderDate).Days;
        for (var i = 0; i < HeaderCount; i++)
        {
            var orderId = FirstSalesOrderId + i;
            var orderDate = FirstOrderDate.AddDays((long)i * spanDays / HeaderCount);
            var isReseller = reseller[i];
            string? tracking = isReseller ? $"{Hex(rng, 4)}-{Hex(rng, 4)}-{Hex(rng, 2)}" : null;
            var subTotal = 0m;
            for (var line = 0; line < lines[i]; line++)
            {
                var detail = DetailOf(rng, goods, isReseller, line, orderId, details.Count + 1, tracking, orderDate);
                subTotal += detail.LineTotal;
                details.Add(detail);
            }
            headers.Add(HeaderOf(rng, orderId, orderDate, isReseller, decimal.Round(subTotal, 4)));
        }
        return (headers, details);
    }

    /// <summary>The finished goods an order line draws from: all of them (resellers), bikes, and accessories.</summary>
    private sealed record Goods(ProductRow[] Sellable, ProductRow[] Bikes, ProductRow[] Accessories);

    /// <summary>Line counts first, so the total can be made exactly 121,317 before any row is written.</summary>
    private static (bool[] Reseller, int[] Lines) LineCounts(SplitMix64 rng)
    {
        var reseller = new bool[HeaderCount];
        var lines = new int[HeaderCount];
        var total = 0;
        for (var i = 0; i < HeaderCount; i++)
        {
            reseller[i] = rng.Chance(ResellerShare);
            if (reseller[i])
            {
                lines[i] = rng.Next(1, MaxResellerLines + 1);
            }
            else
            {
                // Online orders are small: one line half the time, a geometric tail up to eight.
                var n = 1;
                while (n < MaxOnlineLines && rng.Chance(0.55))
                {
                    n++;
                }
                lines[i] = n;
            }
            total += lines[i];
        }
        while (total != DetailCount)
        {
            var i = rng.Next(0, HeaderCount);
            var max = reseller[i] ? MaxResellerLines : MaxOnlineLines;
            if (total < DetailCount && lines[i] < max)
            {
                lines[i]++;
                total++;
            }
            else if (total > DetailCount && lines[i] > 1)
            {
                lines[i]--;
                total--;
            }
        }
        return (reseller, lines);
    }

    private static SalesOrderDetailRow DetailOf(SplitMix64 rng, Goods goods, bool isReseller, int line, int orderId,
        int detailId, string? tracking, DateTime orderDate)
    {
        var product = isReseller ? rng.Pick(goods.Sellable)
            : line == 0 && rng.Chance(0.6) ? rng.Pick(goods.Bikes)
            : rng.Pick(goods.Accessories);
        short qty = 1;
        var offer = 1;
        var discount = 0m;
        var unitPrice = product.ListPrice;
        if (isReseller)
        {
            // Resellers buy at 60 % of list, in small multiples, with an occasional volume discount.
            unitPrice = decimal.Round(product.ListPrice * 0.6m, 4);
            qty = (short)(1 + (int)(rng.NextDouble() * rng.NextDouble() * 12));
            if (rng.Chance(0.06))
            {
                (offer, discount) = rng.Pick(ResellerOffers);
            }
        }
        return new SalesOrderDetailRow(orderId, detailId, tracking, qty, product.ProductId, offer, unitPrice, discount,
            rng.NextGuid(), orderDate);
    }

    private static SalesOrderHeaderRow HeaderOf(SplitMix64 rng, int orderId, DateTime orderDate, bool isReseller, decimal subTotal)
    {
        var shipDate = orderDate.AddDays(7);
        var taxAmt = decimal.Round(subTotal * 0.08m, 4);
        var freight = decimal.Round(subTotal * 0.025m, 4);
        var hasCard = !isReseller || rng.Chance(0.7);
        var territory = rng.Next(1, 11);
        var address = rng.Next(400, 29_884);
        return new SalesOrderHeaderRow(
            orderId,
            RevisionNumber: (short)(orderDate.Year < 2014 ? 8 : 9),
            orderDate,
            DueDate: orderDate.AddDays(12),
            shipDate,
            Status: 5,
            OnlineOrderFlag: !isReseller,
            PurchaseOrderNumber: isReseller ? $"PO{rng.Next(10_000, 99_999)}{rng.Next(100_000, 999_999)}" : null,
            AccountNumber: isReseller ? $"10-4020-{rng.Next(1, 701):D6}" : $"10-4030-{rng.Next(11_000, 30_119):D6}",
            CustomerId: isReseller ? rng.Next(29_485, 30_119) : rng.Next(11_000, 30_119),
            SalesPersonId: isReseller ? rng.Next(274, 291) : null,
            TerritoryId: territory,
            BillToAddressId: address,
            ShipToAddressId: rng.Chance(0.9) ? address : rng.Next(400, 29_884),
            ShipMethodId: isReseller ? 5 : 1,
            CreditCardId: hasCard ? rng.Next(1, 19_238) : null,
            CreditCardApprovalCode: hasCard ? $"{rng.Next(100_000, 1_000_000)}Vi{rng.Next(10_000, 100_000)}" : null,
            CurrencyRateId: territory > 6 && rng.Chance(0.6) ? rng.Next(1, 13_533) : null,
            subTotal,
            taxAmt,
            freight,
            Comment: rng.Chance(0.01) ? rng.Pick(Comments) : null,
            rng.NextGuid(),
            ModifiedDate: shipDate);
    }

    private static string Hex(SplitMix64 rng, int digits) =>
        string.Create(digits, rng, static (span, r) =>
        {
            for (var k = 0; k < span.Length; k++)
            {
                span[k] = "0123456789ABCDEF"[r.Next(0, 16)];
            }
        });
}
