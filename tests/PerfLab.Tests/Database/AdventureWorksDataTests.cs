using System.Text.RegularExpressions;
using PerfLab.Database;

namespace PerfLab.Tests.Database;

// The generator alone, without a database.
public sealed partial class AdventureWorksDataTests
{
    private static readonly AdventureWorksData Data = AdventureWorksData.Generate();

    [Fact]
    public void Generate_DefaultSeed_HasTheRealTablesVolumesAndIdRanges()
    {
        Assert.Equal(504, Data.Products.Count);
        Assert.Equal(Enumerable.Range(1, 504), Data.Products.Select(p => p.ProductId));
        Assert.Equal(31_465, Data.Headers.Count);
        Assert.Equal(Enumerable.Range(43_659, 31_465), Data.Headers.Select(h => h.SalesOrderId));
        Assert.Equal(121_317, Data.Details.Count);
        Assert.Equal(Enumerable.Range(1, 121_317), Data.Details.Select(d => d.SalesOrderDetailId));
    }

    [Fact]
    public void Generate_LinesPerOrder_MostlySmallUpToThirtyAveraging386()
    {
        var lines = Data.Details.GroupBy(d => d.SalesOrderId).Select(g => g.Count()).ToArray();

        Assert.Equal(31_465, lines.Length);
        Assert.InRange(lines.Min(), 1, 1);
        Assert.InRange(lines.Max(), 20, 30);
        Assert.InRange(lines.Average(), 3.85, 3.87);
        Assert.True(lines.Count(n => n <= 3) > lines.Length / 2, "most orders should have 1 to 3 lines");
    }

    [Fact]
    public void Generate_Values_LookLikeAdventureWorks()
    {
        Assert.All(Data.Headers, h =>
        {
            Assert.InRange(h.OrderDate, new DateTime(2011, 1, 1), new DateTime(2014, 12, 31));
            Assert.Matches(AccountNumber(), h.AccountNumber!);
            if (h.PurchaseOrderNumber is not null)
            {
                Assert.Matches(PurchaseOrderNumber(), h.PurchaseOrderNumber);
            }
            if (h.CreditCardApprovalCode is not null)
            {
                Assert.Matches(ApprovalCode(), h.CreditCardApprovalCode);
            }
        });
        Assert.Contains(Data.Headers, h => h.Comment is not null);
        Assert.True(Data.Headers.Count(h => h.Comment is null) > 0.9 * Data.Headers.Count);
        Assert.All(Data.Details.Where(d => d.CarrierTrackingNumber is not null),
            d => Assert.Matches(TrackingNumber(), d.CarrierTrackingNumber!));
        Assert.True(Data.Details.Count(d => d.UnitPriceDiscount == 0) > 0.9 * Data.Details.Count);
        Assert.Contains(Data.Products, p => p.Name == "HL Road Frame - Black, 58" && p.ProductNumber == "FR-R92B-58");
        Assert.Contains(Data.Products, p => p.Name == "Road-150 Red, 62" && p.ProductNumber == "BK-R93R-62");
        Assert.Contains(Data.Products, p => p.Name == "Sport-100 Helmet, Red" && p.ProductNumber == "HL-U509-R");
        Assert.Equal(Data.Products.Count, Data.Products.Select(p => p.ProductNumber).Distinct().Count());
        Assert.Equal(Data.Details.Count, Data.Details.Select(d => d.RowGuid).Distinct().Count());
    }

    [Fact]
    public void Generate_OrderTotals_AreTheSumOfTheirLines()
    {
        var sums = Data.Details.GroupBy(d => d.SalesOrderId).ToDictionary(g => g.Key, g => g.Sum(d => d.LineTotal));

        Assert.All(Data.Headers, h => Assert.Equal(decimal.Round(sums[h.SalesOrderId], 4), h.SubTotal));
    }

    [Fact]
    public async Task ComputeChecksum_SameSeedTwice_IsEqualAndAnotherSeedDiffers()
    {
        var first = await DataChecksums.ComputeAsync(AdventureWorksData.Generate(), default);
        var second = await DataChecksums.ComputeAsync(AdventureWorksData.Generate(), default);
        var other = await DataChecksums.ComputeAsync(AdventureWorksData.Generate(seed: 7), default);

        Assert.Equal(first, second);
        Assert.NotEqual(first, other);
        Assert.Matches("^[0-9a-f]{64}$", first);
    }

    [GeneratedRegex(@"^10-40[23]0-\d{6}$")]
    private static partial Regex AccountNumber();

    [GeneratedRegex(@"^PO\d{11}$")]
    private static partial Regex PurchaseOrderNumber();

    [GeneratedRegex(@"^\d{6}Vi\d{5}$")]
    private static partial Regex ApprovalCode();

    [GeneratedRegex(@"^[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{2}$")]
    private static partial Regex TrackingNumber();
}
