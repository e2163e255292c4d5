namespace PerfLab.Database;

// One generated row per table, in schema.sql's column order. The computed columns (SalesOrderNumber, TotalDue,
// LineTotal) are absent: PostgreSQL computes them.

internal sealed record ProductRow(
    int ProductId,
    string Name,
    string ProductNumber,
    bool MakeFlag,
    bool FinishedGoodsFlag,
    string? Color,
    short SafetyStockLevel,
    short ReorderPoint,
    decimal StandardCost,
    decimal ListPrice,
    string? Size,
    string? SizeUnitMeasureCode,
    string? WeightUnitMeasureCode,
    decimal? Weight,
    int DaysToManufacture,
    string? ProductLine,
    string? Class,
    string? Style,
    int? ProductSubcategoryId,
    int? ProductModelId,
    DateTime SellStartDate,
    DateTime? SellEndDate,
    DateTime? DiscontinuedDate,
    Guid RowGuid,
    DateTime ModifiedDate);

internal sealed record SalesOrderHeaderRow(
    int SalesOrderId,
    short RevisionNumber,
    DateTime OrderDate,
    DateTime DueDate,
    DateTime? ShipDate,
    short Status,
    bool OnlineOrderFlag,
    string? PurchaseOrderNumber,
    string? AccountNumber,
    int CustomerId,
    int? SalesPersonId,
    int? TerritoryId,
    int BillToAddressId,
    int ShipToAddressId,
    int ShipMethodId,
    int? CreditCardId,
    string? CreditCardApprovalCode,
    int? CurrencyRateId,
    decimal SubTotal,
    decimal TaxAmt,
    decimal Freight,
    string? Comment,
    Guid RowGuid,
    DateTime ModifiedDate);

internal sealed record SalesOrderDetailRow(
    int SalesOrderId,
    int SalesOrderDetailId,
    string? CarrierTrackingNumber,
    short OrderQty,
    int ProductId,
    int SpecialOfferId,
    decimal UnitPrice,
    decimal UnitPriceDiscount,
    Guid RowGuid,
    DateTime ModifiedDate)
{
    /// <summary>The value PostgreSQL computes for "LineTotal" (numeric arithmetic is exact in decimal here).</summary>
    public decimal LineTotal => UnitPrice * (1 - UnitPriceDiscount) * OrderQty;
}
