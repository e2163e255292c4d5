using System.Text.RegularExpressions;
using PerfLab.Database;

namespace PerfLab.Tests.Database;

// schema.sql stays the DDL; the descriptors are what the seeder, the checksums and the counts read. This keeps the two
// in step: a column added to one and not the other fails here instead of at COPY time.
public sealed class TablesTests
{
    [Fact]
    public void Descriptors_EachSeededTable_ListSchemaSqlsLoadedColumnsInOrder()
    {
        var ddl = ParseSchemaSql(Seeder.ReadSchemaSql());

        Assert.Equal(Tables.All.Select(t => t.DisplayName), ddl.Keys.Where(k => !k.StartsWith("perflab.", StringComparison.Ordinal)));
        foreach (var table in Tables.All)
        {
            Assert.Equal(ddl[table.DisplayName], table.ColumnNames);
        }
    }

    [Fact]
    public void CopyCommand_SalesOrderDetail_QuotesEveryLoadedColumnInOrder()
    {
        Assert.Equal(
            "COPY \"Sales\".\"SalesOrderDetail\" (\"SalesOrderID\",\"SalesOrderDetailID\",\"CarrierTrackingNumber\"," +
            "\"OrderQty\",\"ProductID\",\"SpecialOfferID\",\"UnitPrice\",\"UnitPriceDiscount\",\"rowguid\",\"ModifiedDate\") " +
            "FROM STDIN (FORMAT BINARY)",
            Tables.SalesOrderDetail.CopyCommand);
    }

    // Table name ("Schema.Table") -> its columns without the GENERATED ones, in DDL order.
    private static Dictionary<string, List<string>> ParseSchemaSql(string sql)
    {
        var tables = new Dictionary<string, List<string>>();
        List<string>? current = null;
        foreach (var line in sql.Split('\n').Select(l => l.Trim()))
        {
            if (Regex.Match(line, """^CREATE TABLE "?(\w+)"?\."?(\w+)"? \($""") is { Success: true } create)
            {
                current = tables[create.Groups[1].Value + "." + create.Groups[2].Value] = [];
            }
            else if (current is not null && Regex.Match(line, """^"(\w+)"\s""") is { Success: true } column
                     && !line.Contains("GENERATED ALWAYS", StringComparison.Ordinal))
            {
                current.Add(column.Groups[1].Value);
            }
            else if (line.StartsWith(')'))
            {
                current = null;
            }
        }
        return tables;
    }
}
