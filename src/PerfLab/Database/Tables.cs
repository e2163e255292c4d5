using NpgsqlTypes;

namespace PerfLab.Database;

/// <summary>The three tables perflab seeds, in load order (products and headers before the details that reference them).</summary>
internal static class Tables
{
    public static readonly TableDescriptor<ProductRow> Product = new("Production", "Product", ["ProductID"],
    [
        new("ProductID", (s, p, ct) => s.WriteAsync(p.ProductId, ct)),
        new("Name", (s, p, ct) => s.WriteAsync(p.Name, NpgsqlDbType.Varchar, ct)),
        new("ProductNumber", (s, p, ct) => s.WriteAsync(p.ProductNumber, NpgsqlDbType.Varchar, ct)),
        new("MakeFlag", (s, p, ct) => s.WriteAsync(p.MakeFlag, ct)),
        new("FinishedGoodsFlag", (s, p, ct) => s.WriteAsync(p.FinishedGoodsFlag, ct)),
        new("Color", (s, p, ct) => s.WriteAsync(p.Color, NpgsqlDbType.Varchar, ct)),
        new("SafetyStockLevel", (s, p, ct) => s.WriteAsync(p.SafetyStockLevel, ct)),
        new("ReorderPoint", (s, p, ct) => s.WriteAsync(p.ReorderPoint, ct)),
        new("StandardCost", (s, p, ct) => s.WriteAsync(p.StandardCost, ct)),
        new("ListPrice", (s, p, ct) => s.WriteAsync(p.ListPrice, ct)),
        new("Size", (s, p, ct) => s.WriteAsync(p.Size, NpgsqlDbType.Varchar, ct)),
        new("SizeUnitMeasureCode", (s, p, ct) => s.WriteAsync(p.SizeUnitMeasureCode, NpgsqlDbType.Char, ct)),
        new("WeightUnitMeasureCode", (s, p, ct) => s.WriteAsync(p.WeightUnitMeasureCode, NpgsqlDbType.Char, ct)),
        new("Weight", (s, p, ct) => s.WriteAsync(p.Weight, ct)),
        new("DaysToManufacture", (s, p, ct) => s.WriteAsync(p.DaysToManufacture, ct)),
        new("ProductLine", (s, p, ct) => s.WriteAsync(p.ProductLine, NpgsqlDbType.Char, ct)),
        new("Class", (s, p, ct) => s.WriteAsync(p.Class, NpgsqlDbType.Char, ct)),
        new("Style", (s, p, ct) => s.WriteAsync(p.Style, NpgsqlDbType.Char, ct)),
        new("ProductSubcategoryID", (s, p, ct) => s.WriteAsync(p.ProductSubcategoryId, ct)),
        new("ProductModelID", (s, p, ct) => s.WriteAsync(p.ProductModelId, ct)),
        new("SellStartDate", (s, p, ct) => s.WriteAsync(p.SellStartDate, ct)),
        new("SellEndDate", (s, p, ct) => s.WriteAsync(p.SellEndDate, ct)),
        new("DiscontinuedDate", (s, p, ct) => s.WriteAsync(p.DiscontinuedDate, ct)),
        new("rowguid", (s, p, ct) => s.WriteAsync(p.RowGuid, ct)),
        new("ModifiedDate", (s, p, ct) => s.WriteAsync(p.ModifiedDate, ct)),
    ]);

    public static readonly TableDescriptor<SalesOrderHeaderRow> SalesOrderHeader = new("Sales", "SalesOrderHeader",
        ["SalesOrderID"],
    [
        new("SalesOrderID", (s, h, ct) => s.WriteAsync(h.SalesOrderId, ct)),
        new("RevisionNumber", (s, h, ct) => s.WriteAsync(h.RevisionNumber, ct)),
        new("OrderDate", (s, h, ct) => s.WriteAsync(h.OrderDate, ct)),
        new("DueDate", (s, h, ct) => s.WriteAsync(h.DueDate, ct)),
        new("ShipDate", (s, h, ct) => s.WriteAsync(h.ShipDate, ct)),
        new("Status", (s, h, ct) => s.WriteAsync(h.Status, ct)),
        new("OnlineOrderFlag", (s, h, ct) => s.WriteAsync(h.OnlineOrderFlag, ct)),
        new("PurchaseOrderNumber", (s, h, ct) => s.WriteAsync(h.PurchaseOrderNumber, NpgsqlDbType.Varchar, ct)),
        new("AccountNumber", (s, h, ct) => s.WriteAsync(h.AccountNumber, NpgsqlDbType.Varchar, ct)),
        new("CustomerID", (s, h, ct) => s.WriteAsync(h.CustomerId, ct)),
        new("SalesPersonID", (s, h, ct) => s.WriteAsync(h.SalesPersonId, ct)),
        new("TerritoryID", (s, h, ct) => s.WriteAsync(h.TerritoryId, ct)),
        new("BillToAddressID", (s, h, ct) => s.WriteAsync(h.BillToAddressId, ct)),
        new("ShipToAddressID", (s, h, ct) => s.WriteAsync(h.ShipToAddressId, ct)),
        new("ShipMethodID", (s, h, ct) => s.WriteAsync(h.ShipMethodId, ct)),
        new("CreditCardID", (s, h, ct) => s.WriteAsync(h.CreditCardId, ct)),
        new("CreditCardApprovalCode", (s, h, ct) => s.WriteAsync(h.CreditCardApprovalCode, NpgsqlDbType.Varchar, ct)),
        new("CurrencyRateID", (s, h, ct) => s.WriteAsync(h.CurrencyRateId, ct)),
        new("SubTotal", (s, h, ct) => s.WriteAsync(h.SubTotal, ct)),
        new("TaxAmt", (s, h, ct) => s.WriteAsync(h.TaxAmt, ct)),
        new("Freight", (s, h, ct) => s.WriteAsync(h.Freight, ct)),
        new("Comment", (s, h, ct) => s.WriteAsync(h.Comment, NpgsqlDbType.Varchar, ct)),
        new("rowguid", (s, h, ct) => s.WriteAsync(h.RowGuid, ct)),
        new("ModifiedDate", (s, h, ct) => s.WriteAsync(h.ModifiedDate, ct)),
    ]);

    public static readonly TableDescriptor<SalesOrderDetailRow> SalesOrderDetail = new("Sales", "SalesOrderDetail",
        ["SalesOrderID", "SalesOrderDetailID"],
    [
        new("SalesOrderID", (s, d, ct) => s.WriteAsync(d.SalesOrderId, ct)),
        new("SalesOrderDetailID", (s, d, ct) => s.WriteAsync(d.SalesOrderDetailId, ct)),
        new("CarrierTrackingNumber", (s, d, ct) => s.WriteAsync(d.CarrierTrackingNumber, NpgsqlDbType.Varchar, ct)),
        new("OrderQty", (s, d, ct) => s.WriteAsync(d.OrderQty, ct)),
        new("ProductID", (s, d, ct) => s.WriteAsync(d.ProductId, ct)),
        new("SpecialOfferID", (s, d, ct) => s.WriteAsync(d.SpecialOfferId, ct)),
        new("UnitPrice", (s, d, ct) => s.WriteAsync(d.UnitPrice, ct)),
        new("UnitPriceDiscount", (s, d, ct) => s.WriteAsync(d.UnitPriceDiscount, ct)),
        new("rowguid", (s, d, ct) => s.WriteAsync(d.RowGuid, ct)),
        new("ModifiedDate", (s, d, ct) => s.WriteAsync(d.ModifiedDate, ct)),
    ]);

    public static IReadOnlyList<ITable> All { get; } = [Product, SalesOrderHeader, SalesOrderDetail];
}
