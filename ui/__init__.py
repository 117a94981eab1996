"""The app side of GOAT Explorer: session state (``state``), shared caches (``cache``), live
training (``training``), background jobs (``jobs``), the page registry (``navigation``), small
page parts (``parts``) and each page's pieces (``gossip``, ``embeddings``, ``scores``…).
Streamlit lives here and in ``app_pages/``; ``goat_core`` never imports it."""
