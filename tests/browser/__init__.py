"""End-to-end tests in real Chromium against a real ``streamlit run`` server."""
