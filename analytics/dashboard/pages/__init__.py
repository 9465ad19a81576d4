"""The dashboard's pages: thin Streamlit scripts run by ``st.navigation`` (see app.py)."""
