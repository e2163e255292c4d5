using Npgsql;

namespace PerfLab.Sut.Data;

/// <summary>
/// The SQL of the ADO.NET data layer and the mapping of its rows, column by ordinal. The queries have the shape EF
/// Core 10 gives the same LINQ (one statement, the page in a subquery, the details left-joined and ordered by key), so
/// the two layers differ in what runs in the SUT, not in what PostgreSQL is asked.
/// </summary>
internal static class AdoNetRows
{
    private const string OrderColumns =
        """
        o."SalesOrderID", o."RevisionNumber", o."OrderDate", o."DueDate", o."ShipDate", o."Status", o."OnlineOrderFlag",
        o."SalesOrderNumber", o."PurchaseOrderNumber", o."AccountNumber", o."CustomerID", o."SalesPersonID", o."TerritoryID",
        o."BillToAddressID", o."ShipToAddressID", o."ShipMethodID", o."CreditCardID", o."CreditCardApprovalCode",
        o."CurrencyRateID", o."SubTotal", o."TaxAmt", o."Freight", o."TotalDue", o."Comment", o."rowguid", o."ModifiedDate"
        """;

    private const string DetailColumns =
        """
        d."SalesOrderID", d."SalesOrderDetailID", d."CarrierTrackingNumber", d."OrderQty", d."ProductID", d."SpecialOfferID",
        d."UnitPrice", d."UnitPriceDiscount", d."LineTotal", d."rowguid", d."ModifiedDate"
        """;

    private const string ProductColumns =
        """
        p."ProductID", p."Name", p."ProductNumber", p."MakeFlag", p."FinishedGoodsFlag", p."Color", p."SafetyStockLevel",
        p."ReorderPoint", p."StandardCost", p."ListPrice", p."Size", p."SizeUnitMeasureCode", p."WeightUnitMeasureCode",
        p."Weight", p."DaysToManufacture", p."ProductLine", p."Class", p."Style", p."ProductSubcategoryID", p."ProductModelID",
        p."SellStartDate", p."SellEndDate", p."DiscontinuedDate", p."rowguid", p."ModifiedDate"
        """;

    /// <summary>The ordinal of the first detail column in the order queries (after the order's 26).</summary>
    private const int DetailOffset = 26;

    /// <summary>$1 = take, $2 = skip.</summary>
    public const string OrdersPage =
        $"""
        SELECT {OrderColumns}, {DetailColumns}
        FROM (SELECT * FROM "Sales"."SalesOrderHeader" ORDER BY "SalesOrderID" LIMIT $1 OFFSET $2) AS o
        LEFT JOIN "Sales"."SalesOrderDetail" AS d ON o."SalesOrderID" = d."SalesOrderID"
        ORDER BY o."SalesOrderID", d."SalesOrderID", d."SalesOrderDetailID"
        """;

    /// <summary>$1 = the order's id.</summary>
    public const string Order =
        $"""
        SELECT {OrderColumns}, {DetailColumns}
        FROM (SELECT * FROM "Sales"."SalesOrderHeader" WHERE "SalesOrderID" = $1 LIMIT 1) AS o
        LEFT JOIN "Sales"."SalesOrderDetail" AS d ON o."SalesOrderID" = d."SalesOrderID"
        ORDER BY o."SalesOrderID", d."SalesOrderID", d."SalesOrderDetailID"
        """;

    public const string OrderIds = """SELECT "SalesOrderID" FROM "Sales"."SalesOrderHeader" ORDER BY "SalesOrderID" """;

    public const string OrderCount = """SELECT count(*)::int FROM "Sales"."SalesOrderHeader" """;

    /// <summary>$1 = take, $2 = skip.</summary>
    public const string ProductsPage =
        $"""
        SELECT {ProductColumns} FROM "Production"."Product" AS p ORDER BY p."ProductID" LIMIT $1 OFFSET $2
        """;

    public const string ProductCount = """SELECT count(*)::int FROM "Production"."Product" """;

    /// <summary>$1 = seconds.</summary>
    public const string Sleep = "SELECT pg_sleep($1)";

    /// <summary>Orders with their details, one order per run of rows with the same id, as EF Core's Include builds them.</summary>
    public static async Task<List<SalesOrderHeader>> ReadOrdersAsync(NpgsqlDataReader reader, bool async, CancellationToken ct)
    {
        var orders = new List<SalesOrderHeader>();
        SalesOrderHeader? current = null;
        while (async ? await reader.ReadAsync(ct) : reader.Read())
        {
            if (current is null || current.SalesOrderID != reader.GetInt32(0))
            {
                current = ReadOrder(reader);
                orders.Add(current);
            }
            if (!reader.IsDBNull(DetailOffset))
            {
                var detail = ReadDetail(reader, DetailOffset);
                // The link back that Include fixes up: the serializers meet the same cycle as on the EF Core pages.
                detail.SalesOrderHeader = current;
                current.SalesOrderDetails.Add(detail);
            }
        }
        return orders;
    }

    public static async Task<List<Product>> ReadProductsAsync(NpgsqlDataReader reader, bool async, CancellationToken ct)
    {
        var products = new List<Product>();
        while (async ? await reader.ReadAsync(ct) : reader.Read())
        {
            products.Add(ReadProduct(reader));
        }
        return products;
    }

    public static async Task<List<int>> ReadIdsAsync(NpgsqlDataReader reader, bool async, CancellationToken ct)
    {
        var ids = new List<int>();
        while (async ? await reader.ReadAsync(ct) : reader.Read())
        {
            ids.Add(reader.GetInt32(0));
        }
        return ids;
    }

    private static SalesOrderHeader ReadOrder(NpgsqlDataReader r) => new()
    {
        SalesOrderID = r.GetInt32(0),
        RevisionNumber = r.GetInt16(1),
        OrderDate = r.GetDateTime(2),
        DueDate = r.GetDateTime(3),
        ShipDate = r.IsDBNull(4) ? null : r.GetDateTime(4),
        Status = r.GetInt16(5),
        OnlineOrderFlag = r.GetBoolean(6),
        SalesOrderNumber = r.GetString(7),
        PurchaseOrderNumber = StringOrNull(r, 8),
        AccountNumber = StringOrNull(r, 9),
        CustomerID = r.GetInt32(10),
        SalesPersonID = IntOrNull(r, 11),
        TerritoryID = IntOrNull(r, 12),
        BillToAddressID = r.GetInt32(13),
        ShipToAddressID = r.GetInt32(14),
        ShipMethodID = r.GetInt32(15),
        CreditCardID = IntOrNull(r, 16),
        CreditCardApprovalCode = StringOrNull(r, 17),
        CurrencyRateID = IntOrNull(r, 18),
        SubTotal = r.GetDecimal(19),
        TaxAmt = r.GetDecimal(20),
        Freight = r.GetDecimal(21),
        TotalDue = r.GetDecimal(22),
        Comment = StringOrNull(r, 23),
        Rowguid = r.GetGuid(24),
        ModifiedDate = r.GetDateTime(25),
    };

    private static SalesOrderDetail ReadDetail(NpgsqlDataReader r, int at) => new()
    {
        SalesOrderID = r.GetInt32(at),
        SalesOrderDetailID = r.GetInt32(at + 1),
        CarrierTrackingNumber = StringOrNull(r, at + 2),
        OrderQty = r.GetInt16(at + 3),
        ProductID = r.GetInt32(at + 4),
        SpecialOfferID = r.GetInt32(at + 5),
        UnitPrice = r.GetDecimal(at + 6),
        UnitPriceDiscount = r.GetDecimal(at + 7),
        LineTotal = r.GetDecimal(at + 8),
        Rowguid = r.GetGuid(at + 9),
        ModifiedDate = r.GetDateTime(at + 10),
    };

    private static Product ReadProduct(NpgsqlDataReader r) => new()
    {
        ProductID = r.GetInt32(0),
        Name = r.GetString(1),
        ProductNumber = r.GetString(2),
        MakeFlag = r.GetBoolean(3),
        FinishedGoodsFlag = r.GetBoolean(4),
        Color = StringOrNull(r, 5),
        SafetyStockLevel = r.GetInt16(6),
        ReorderPoint = r.GetInt16(7),
        StandardCost = r.GetDecimal(8),
        ListPrice = r.GetDecimal(9),
        Size = StringOrNull(r, 10),
        SizeUnitMeasureCode = StringOrNull(r, 11),
        WeightUnitMeasureCode = StringOrNull(r, 12),
        Weight = r.IsDBNull(13) ? null : r.GetDecimal(13),
        DaysToManufacture = r.GetInt32(14),
        ProductLine = StringOrNull(r, 15),
        Class = StringOrNull(r, 16),
        Style = StringOrNull(r, 17),
        ProductSubcategoryID = IntOrNull(r, 18),
        ProductModelID = IntOrNull(r, 19),
        SellStartDate = r.GetDateTime(20),
        SellEndDate = r.IsDBNull(21) ? null : r.GetDateTime(21),
        DiscontinuedDate = r.IsDBNull(22) ? null : r.GetDateTime(22),
        Rowguid = r.GetGuid(23),
        ModifiedDate = r.GetDateTime(24),
    };

    private static string? StringOrNull(NpgsqlDataReader r, int ordinal) => r.IsDBNull(ordinal) ? null : r.GetString(ordinal);

    private static int? IntOrNull(NpgsqlDataReader r, int ordinal) => r.IsDBNull(ordinal) ? null : r.GetInt32(ordinal);
}
