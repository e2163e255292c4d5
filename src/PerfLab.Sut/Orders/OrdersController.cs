using System.ComponentModel.DataAnnotations;
using Microsoft.AspNetCore.Mvc;
using PerfLab.Sut.Data;
using PerfLab.Sut.Logging;
using PerfLab.Sut.Serialization;

namespace PerfLab.Sut.Orders;

/// <summary>
/// Seed 000's CMS orders API. A controller, as in the article, so that the serializer variants are MVC's own
/// output formatters (System.Text.Json or AddNewtonsoftJson); the queries come from the active data layer.
/// </summary>
[ApiController]
[Route("customer/orders")]
public sealed class OrdersController(IAdventureWorksQueries queries, DataAccess data, RequestLog log, PayloadShaping shaping)
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
        var orders = await data.QueryAsync((awaited, ct) => queries.OrdersPageAsync((int)skip, pageSize, awaited, ct),
            HttpContext.RequestAborted);
        shaping.ShapeOrders(orders);
        log.PageServed("orders", pageNumber, pageSize, orders.Count);
        return orders;
    }

    [HttpGet("{id}")]
    public async Task<ActionResult<SalesOrderHeader>> GetOrder([Range(1, int.MaxValue)] int id)
    {
        var order = await data.QueryAsync((awaited, ct) => queries.OrderAsync(id, awaited, ct), HttpContext.RequestAborted);
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
        var ids = await data.QueryAsync(queries.OrderIdsAsync, HttpContext.RequestAborted);
        log.PageServed("order ids", 1, ids.Count, ids.Count);
        return ids;
    }

    [HttpGet("count")]
    public async Task<ActionResult<int>> GetOrderCount()
    {
        var count = await data.QueryAsync(queries.OrderCountAsync, HttpContext.RequestAborted);
        log.CountServed("orders", count);
        return count;
    }
}
