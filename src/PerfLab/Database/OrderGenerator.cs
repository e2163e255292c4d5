namespace PerfLab.Database;

/// <summary>
/// Draws the 31,465 order headers and their 121,317 lines. The order of the draws from the generator is part of the
/// pinned checksum: change it and the data change.
/// </summary>
internal static class OrderGenerator
{
    private const int MaxOnlineLines = 8;
    private const int MaxResellerLines = 30;
    private const double ResellerShare = 0.121;

    private static readonly DateTime FirstOrderDate = new(2011, 5, 31);
    private static readonly DateTime LastOrderDate = new(2014, 6, 30);
    private static readonly string[] Comments =
        ["Deliver to the loading dock.", "Call before delivery.", "Gift wrap, please.", "Leave at the front desk."];
    private static readonly (int SpecialOfferId, decimal Discount)[] ResellerOffers =
        [(2, 0.02m), (3, 0.05m), (4, 0.10m), (7, 0.15m)];

    // The products an order line can draw from: online orders lead with a bike, then buy accessories.
    private sealed record Catalog(ProductRow[] Sellable, ProductRow[] Bikes, ProductRow[] Accessories);

    public static (List<SalesOrderHeaderRow>, List<SalesOrderDetailRow>) Generate(SplitMix64 rng,
        IReadOnlyList<ProductRow> products)
    {
        var sellable = products.Where(p => p.FinishedGoodsFlag).ToArray();
        var catalog = new Catalog(sellable, sellable.Where(p => p.Weight is > 10m).ToArray(),
            sellable.Where(p => p.Weight is null).ToArray());
        var (reseller, lines) = DrawLineCounts(rng);

        var headers = new List<SalesOrderHeaderRow>(AdventureWorksData.HeaderCount);
        var details = new List<SalesOrderDetailRow>(AdventureWorksData.DetailCount);
        var spanDays = (LastOrderDate - FirstOrderDate).Days;
        for (var i = 0; i < AdventureWorksData.HeaderCount; i++)
        {
            var orderId = AdventureWorksData.FirstSalesOrderId + i;
            var orderDate = FirstOrderDate.AddDays((long)i * spanDays / AdventureWorksData.HeaderCount);
            var subTotal = AddLines(rng, catalog, orderId, orderDate, reseller[i], lines[i], details);
            headers.Add(Header(rng, orderId, orderDate, reseller[i], subTotal));
        }
        return (headers, details);
    }

    // Line counts first, so the total can be made exactly 121,317 before any row is written.
    private static (bool[] Reseller, int[] Lines) DrawLineCounts(SplitMix64 rng)
    {
        var reseller = new bool[AdventureWorksData.HeaderCount];
        var lines = new int[AdventureWorksData.HeaderCount];
        var total = 0;
        for (var i = 0; i < AdventureWorksData.HeaderCount; i++)
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
        while (total != AdventureWorksData.DetailCount)
        {
            var i = rng.Next(0, AdventureWorksData.HeaderCount);
            var max = reseller[i] ? MaxResellerLines : MaxOnlineLines;
            if (total < AdventureWorksData.DetailCount && lines[i] < max)
            {
                lines[i]++;
                total++;
            }
            else if (total > AdventureWorksData.DetailCount && lines[i] > 1)
            {
                lines[i]--;
                total--;
            }
        }
        return (reseller, lines);
    }

    /// <returns>The order's subtotal, rounded as the header stores it.</returns>
    private static decimal AddLines(SplitMix64 rng, Catalog catalog, int orderId, DateTime orderDate, bool isReseller,
        int lineCount, List<SalesOrderDetailRow> details)
    {
        string? tracking = isReseller ? $"{Hex(rng, 4)}-{Hex(rng, 4)}-{Hex(rng, 2)}" : null;
        var subTotal = 0m;
        for (var line = 0; line < lineCount; line++)
        {
            var product = !isReseller && line == 0 && rng.Chance(0.6) ? rng.Pick(catalog.Bikes)
                : !isReseller ? rng.Pick(catalog.Accessories)
                : rng.Pick(catalog.Sellable);
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
            var detail = new SalesOrderDetailRow(orderId, details.Count + 1, tracking, qty, product.ProductId, offer,
                unitPrice, discount, rng.NextGuid(), orderDate);
            subTotal += detail.LineTotal;
            details.Add(detail);
        }
        return decimal.Round(subTotal, 4);
    }

    private static SalesOrderHeaderRow Header(SplitMix64 rng, int orderId, DateTime orderDate, bool isReseller,
        decimal subTotal)
    {
        var shipDate = orderDate.AddDays(7);
        var taxAmt = decimal.Round(subTotal * 0.08m, 4);
        var freight = decimal.Round(subTotal * 0.025m, 4);
        var hasCard = !isReseller || rng.Chance(0.7);
        var territory = rng.Next(1, 11);
        var address = rng.Next(400, 29_884);
        // The arguments are evaluated in the order written, and so draw from rng in that order.
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
