"""kgcore: the framework-free core of kg-retrievers."""
