using System.ComponentModel.DataAnnotations;
using Microsoft.AspNetCore.Mvc;
using Microsoft.EntityFrameworkCore;
using PerfLab.Sut.Data;
using PerfLab.Sut.Logging;
using PerfLab.Sut.Serialization;

namespace PerfLab.Sut.Orders;

/// <summary>
/// Seed 000's CMS orders API. A controller, as in the article, so that the serializer variants are MVC's own
/// output formatters (System.Text.Json or AddNewtonsoftJson).
/// </summary>
[ApiController]
[Route("customer/orders")]
public sealed class OrdersController(AdventureWorks db, DataAccess data, RequestLog log, PayloadShaping shaping)
    : ControllerBase
{
    [HttpGet]
    public async Task<ActionResult<List<SalesOrderHeader>>> GetOrders(
        [Range(1, int.MaxValue)] int pageNumber = 1, [Range(1, 1000)] int pageSize = 100)
    {
        var skip = (long)(pageNumber - 1) * pageSize;
        if (skip > int.MaxValue)
        {
            return new List<SalesOrderHeader>();
        }
        var query = db.SalesOrderHeaders.AsNoTracking()
            .Include(x => x.SalesOrderDetails)
            .OrderBy(x => x.SalesOrderID)
            .Skip((int)skip)
            .Take(pageSize);
        var orders = await data.QueryAsync(ct => query.ToListAsync(ct), query.ToList, HttpContext.RequestAborted);
        shaping.ShapeOrders(orders);
        log.PageServed("orders", pageNumber, pageSize, orders.Count);
        return orders;
    }

    [HttpGet("{id}")]
    public async Task<ActionResult<SalesOrderHeader>> GetOrder([Range(1, int.MaxValue)] int id)
    {
        var query = db.SalesOrderHeaders.AsNoTracking()
            .Include(x => x.SalesOrderDetails)
            .Where(x => x.SalesOrderID == id);
        var order = await data.QueryAsync(ct => query.FirstOrDefaultAsync(ct), query.FirstOrDefault, HttpContext.RequestAborted);
        if (order is null)
        {
            log.ItemNotFound("order", id);
            return Problem(statusCode: StatusCodes.Status404NotFound, title: "Order not found",
                detail: $"No order has SalesOrderID {id}.");
        }
        shaping.ShapeOrders([order]);
        log.ItemServed("order", id);
        return order;
    }

    [HttpGet("ids")]
    public async Task<ActionResult<List<int>>> GetOrderIds()
    {
        var query = db.SalesOrderHeaders.AsNoTracking().OrderBy(x => x.SalesOrderID).Select(x => x.SalesOrderID);
        var ids = await data.QueryAsync(ct => query.ToListAsync(ct), query.ToList, HttpContext.RequestAborted);
        log.PageServed("order ids", 1, ids.Count, ids.Count);
        return ids;
    }

    [HttpGet("count")]
    public async Task<ActionResult<int>> GetOrderCount()
    {
        var query = db.SalesOrderHeaders.AsNoTracking();
        var count = await data.QueryAsync(ct => query.CountAsync(ct), query.Count, HttpContext.RequestAborted);
        log.CountServed("orders", count);
        return count;
    }
}
