using System.Diagnostics;
using System.Security.Cryptography;
using Npgsql;
using NpgsqlTypes;

namespace PerfLab.Database;

/// <summary>
/// Loads the generated rows with binary COPY, hashing every value as it goes (the seed's checksum); the same writers
/// compute that checksum without a database. Each table's columns are listed once, here, in COPY order.
/// </summary>
internal static class SeedCopy
{
    private const string ProductColumns = """
        "ProductID","Name","ProductNumber","MakeFlag","FinishedGoodsFlag","Color","SafetyStockLevel","ReorderPoint",
        "StandardCost","ListPrice","Size","SizeUnitMeasureCode","WeightUnitMeasureCode","Weight","DaysToManufacture",
        "ProductLine","Class","Style","ProductSubcategoryID","ProductModelID","SellStartDate","SellEndDate",
        "DiscontinuedDate","rowguid","ModifiedDate"
        """;

    private const string HeaderColumns = """
        "SalesOrderID","RevisionNumber","OrderDate","DueDate","ShipDate","Status","OnlineOrderFlag",
        "PurchaseOrderNumber","AccountNumber","CustomerID","SalesPersonID","TerritoryID","BillToAddressID",
        "ShipToAddressID","ShipMethodID","CreditCardID","CreditCardApprovalCode","CurrencyRateID","SubTotal","TaxAmt",
        "Freight","Comment","rowguid","ModifiedDate"
        """;

    private const string DetailColumns = """
        "SalesOrderID","SalesOrderDetailID","CarrierTrackingNumber","OrderQty","ProductID","SpecialOfferID",
        "UnitPrice","UnitPriceDiscount","rowguid","ModifiedDate"
        """;


    /// <summary>Copies the three tables inside the caller's transaction; returns the checksum of what was written.</summary>
    public static async Task<string> CopyAllAsync(NpgsqlConnection connection, AdventureWorksData data, IProgress<SeedProgress>? progress,
        Stopwatch clock, CancellationToken ct)
    {
        using var hash = IncrementalHash.CreateHash(HashAlgorithmName.SHA256);
        var sink = new RowSink(hash);
        await CopyAsync(connection, sink, "\"Production\".\"Product\"", ProductColumns, data.Products, WriteAsync,
            progress, clock, ct);
        await CopyAsync(connection, sink, "\"Sales\".\"SalesOrderHeader\"", HeaderColumns, data.Headers, WriteAsync,
            progress, clock, ct);
        await CopyAsync(connection, sink, "\"Sales\".\"SalesOrderDetail\"", DetailColumns, data.Details, WriteAsync,
            progress, clock, ct);
        return Convert.ToHexStringLower(hash.GetHashAndReset());
    }

    public static async Task<string> ChecksumAsync(AdventureWorksData data, CancellationToken ct)
    {
        using var hash = IncrementalHash.CreateHash(HashAlgorithmName.SHA256);
        var sink = new RowSink(hash);
        foreach (var p in data.Products)
        {
            await WriteAsync(sink, p, ct);
        }
        foreach (var h in data.Headers)
        {
            await WriteAsync(sink, h, ct);
        }
        foreach (var d in data.Details)
        {
            await WriteAsync(sink, d, ct);
        }
        return Convert.ToHexStringLower(hash.GetHashAndReset());
    }

    private static async Task CopyAsync<T>(NpgsqlConnection connection, RowSink sink, string table, string columns,
        IReadOnlyList<T> rows, Func<RowSink, T, CancellationToken, ValueTask> write, IProgress<SeedProgress>? progress,
        Stopwatch clock, CancellationToken ct)
    {
        var copy = $"COPY {table} ({columns.ReplaceLineEndings("")}) FROM STDIN (FORMAT BINARY)";
        await using (var importer = await connection.BeginBinaryImportAsync(copy, ct))
        {
            sink.Importer = importer;
            foreach (var row in rows)
            {
                await write(sink, row, ct);
            }
            await importer.CompleteAsync(ct);
        }
        sink.Importer = null;
        progress?.Report(new SeedProgress(table.Replace("\"", ""), rows.Count, clock.Elapsed));
    }
    private static async ValueTask WriteAsync(RowSink s, ProductRow p, CancellationToken ct)
    {
        await s.StartRowAsync(ct);
        await s.WriteAsync(p.ProductId, ct);
        await s.WriteAsync(p.Name, NpgsqlDbType.Varchar, ct);
        await s.WriteAsync(p.ProductNumber, NpgsqlDbType.Varchar, ct);
        await s.WriteAsync(p.MakeFlag, ct);
        await s.WriteAsync(p.FinishedGoodsFlag, ct);
        await s.WriteAsync(p.Color, NpgsqlDbType.Varchar, ct);
        await s.WriteAsync(p.SafetyStockLevel, ct);
        await s.WriteAsync(p.ReorderPoint, ct);
        await s.WriteAsync(p.StandardCost, ct);
        await s.WriteAsync(p.ListPrice, ct);
        await s.WriteAsync(p.Size, NpgsqlDbType.Varchar, ct);
        await s.WriteAsync(p.SizeUnitMeasureCode, NpgsqlDbType.Char, ct);
        await s.WriteAsync(p.WeightUnitMeasureCode, NpgsqlDbType.Char, ct);
        await s.WriteAsync(p.Weight, ct);
        await s.WriteAsync(p.DaysToManufacture, ct);
        await s.WriteAsync(p.ProductLine, NpgsqlDbType.Char, ct);
        await s.WriteAsync(p.Class, NpgsqlDbType.Char, ct);
        await s.WriteAsync(p.Style, NpgsqlDbType.Char, ct);
        await s.WriteAsync(p.ProductSubcategoryId, ct);
        await s.WriteAsync(p.ProductModelId, ct);
        await s.WriteAsync(p.SellStartDate, ct);
        await s.WriteAsync(p.SellEndDate, ct);
        await s.WriteAsync(p.DiscontinuedDate, ct);
        await s.WriteAsync(p.RowGuid, ct);
        await s.WriteAsync(p.ModifiedDate, ct);
    }
    private static async ValueTask WriteAsync(RowSink s, SalesOrderHeaderRow h, CancellationToken ct)
    {
        await s.StartRowAsync(ct);
        await s.WriteAsync(h.SalesOrderId, ct);
        await s.WriteAsync(h.RevisionNumber, ct);
        await s.WriteAsync(h.OrderDate, ct);
        await s.WriteAsync(h.DueDate, ct);
        await s.WriteAsync(h.ShipDate, ct);
        await s.WriteAsync(h.Status, ct);
        await s.WriteAsync(h.OnlineOrderFlag, ct);
        await s.WriteAsync(h.PurchaseOrderNumber, NpgsqlDbType.Varchar, ct);
        await s.WriteAsync(h.AccountNumber, NpgsqlDbType.Varchar, ct);
        await s.WriteAsync(h.CustomerId, ct);
        await s.WriteAsync(h.SalesPersonId, ct);
        await s.WriteAsync(h.TerritoryId, ct);
        await s.WriteAsync(h.BillToAddressId, ct);
        await s.WriteAsync(h.ShipToAddressId, ct);
        await s.WriteAsync(h.ShipMethodId, ct);
        await s.WriteAsync(h.CreditCardId, ct);
        await s.WriteAsync(h.CreditCardApprovalCode, NpgsqlDbType.Varchar, ct);
        await s.WriteAsync(h.CurrencyRateId, ct);
        await s.WriteAsync(h.SubTotal, ct);
        await s.WriteAsync(h.TaxAmt, ct);
        await s.WriteAsync(h.Freight, ct);
        await s.WriteAsync(h.Comment, NpgsqlDbType.Varchar, ct);
        await s.WriteAsync(h.RowGuid, ct);
        await s.WriteAsync(h.ModifiedDate, ct);
    }
    private static async ValueTask WriteAsync(RowSink s, SalesOrderDetailRow d, CancellationToken ct)
    {
        await s.StartRowAsync(ct);
        await s.WriteAsync(d.SalesOrderId, ct);
        await s.WriteAsync(d.SalesOrderDetailId, ct);
        await s.WriteAsync(d.CarrierTrackingNumber, NpgsqlDbType.Varchar, ct);
        await s.WriteAsync(d.OrderQty, ct);
        await s.WriteAsync(d.ProductId, ct);
        await s.WriteAsync(d.SpecialOfferId, ct);
        await s.WriteAsync(d.UnitPrice, ct);
        await s.WriteAsync(d.UnitPriceDiscount, ct);
        await s.WriteAsync(d.RowGuid, ct);
        await s.WriteAsync(d.ModifiedDate, ct);
    }
}
