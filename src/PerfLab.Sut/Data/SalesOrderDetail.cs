namespace PerfLab.Sut.Data;

/// <summary>Sales.SalesOrderDetail, with the navigation back to its header (the cycle seed 000 discusses).</summary>
public sealed class SalesOrderDetail
{
    public int SalesOrderID { get; set; }
    public int SalesOrderDetailID { get; set; }
    public string? CarrierTrackingNumber { get; set; }
    public short OrderQty { get; set; }
    public int ProductID { get; set; }
    public int SpecialOfferID { get; set; }
    public decimal UnitPrice { get; set; }
    public decimal UnitPriceDiscount { get; set; }
    public decimal LineTotal { get; set; }
    public Guid Rowguid { get; set; }
    public DateTime ModifiedDate { get; set; }

    public SalesOrderHeader? SalesOrderHeader { get; set; }
}
