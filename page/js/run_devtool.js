(...elements) => (
__TOOL__
)(__NAME__, __ARGS__, ...elements)